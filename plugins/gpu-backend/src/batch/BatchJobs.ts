import { LoggerService } from '@backstage/backend-plugin-api';
import { ConflictError, InputError, NotFoundError } from '@backstage/errors';
import { randomUUID } from 'node:crypto';
import { durationToMilliseconds } from '@backstage/types';
import type { KubernetesObject } from '@kubernetes/client-node';
import {
  allowanceUnits,
  GPU_UNITS_PER_EQUIVALENT,
  heldCost,
  Platform,
  poolPrices,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  batchPodsAtOnce,
  renderBatchJob,
  resolveBatchJob,
  ResolvedBatchJob,
} from '@gpu-platform/backstage-plugin-gpu-node';
import {
  ClusterApplier,
  ClusterTarget,
  KubernetesObjectClient,
  KubernetesRequestError,
} from '../cluster';
import { BatchJobRecord, GpuStore } from '../database';
import { platformOnCluster } from '../reconciler/platformOnCluster';
import { applyOrReleaseBatchJob, teamQueueObjectsFor } from './applyBatchJob';
import { JOB_COMPLETED, JOB_FAILED } from './batchJobOutcome';
import { multiKueueManagerOf } from './multiKueue';
import {
  MultiKueueBatchContext,
  placeOnWorker,
  submitToMultiKueue,
} from './multiKueueBatch';
import { readBatchJobStatus } from './readBatchJobStatus';
import {
  DEFAULT_CONFIRM_WITHIN,
  DEFAULT_MERGE_WITHIN,
} from '../services/scheduleStatusTasks';
import {
  BatchJobStatus,
  BatchJobSubmission,
  SubmitBatchJobBody,
} from './types';

/** The actor of releases the plugin makes when a Job has finished or is gone. */
export const BATCH_RELEASE_ACTOR = 'system:gpu-batch-release';

/**
 * How long after its submission a Job missing from its cluster still counts as being applied, not gone: the
 * reservation is taken before the apply, which may retry for a while, and another replica's sweep can read in between.
 */
const APPLYING_GRACE_MS = 10 * 60_000;

/**
 * How long after its submission a GitOps batch job's Job may be missing from its cluster when not configured: the
 * window a GitOps service has for its pull request (`gpu.services.confirmWithin`, 1 hour, to record it, then
 * `gpu.gitops.mergeWithin`, 7 days, to merge it), plus {@link APPLYING_GRACE_MS} for its controller to sync it.
 */
export const DEFAULT_GITOPS_GRACE_MS = gitopsBatchGraceMs({
  confirmWithinMs: durationToMilliseconds(DEFAULT_CONFIRM_WITHIN),
  mergeWithinMs: durationToMilliseconds(DEFAULT_MERGE_WITHIN),
});

/**
 * The GitOps grace of the status settings: the window of a GitOps service's pull request (`confirmWithinMs` to be
 * recorded, `mergeWithinMs` to be merged), plus {@link APPLYING_GRACE_MS} for its controller to sync it.
 */
export function gitopsBatchGraceMs(settings: {
  confirmWithinMs: number;
  mergeWithinMs: number;
}): number {
  return settings.confirmWithinMs + settings.mergeWithinMs + APPLYING_GRACE_MS;
}

/** Clusters whose batch Jobs are read back: apply clusters, and GitOps ones with a (read-only) credential. */
function isRead(target: ClusterTarget): boolean {
  return target.mode === 'apply' || target.mode === 'gitops';
}

/** Why a Job's reservation is released, from the state its cluster reports; undefined while it waits or runs. */
function finishedReason(state: BatchJobStatus['state']): string | undefined {
  if (state === 'succeeded') return JOB_COMPLETED;
  if (state === 'failed') return JOB_FAILED;
  return undefined;
}

/** When the Job finished, as its cluster says (the `Complete` or `Failed` condition's transition); else undefined. */
function finishedAt(status: BatchJobStatus): Date | undefined {
  const type = status.state === 'succeeded' ? 'Complete' : 'Failed';
  const at = status.conditions.find(
    c => c.type === type && c.status === 'True',
  )?.lastTransitionTime;
  const time = at ? Date.parse(at) : NaN;
  return Number.isFinite(time) ? new Date(time) : undefined;
}

/** Collaborators of {@link BatchJobs}. */
export interface BatchJobsOptions {
  platform: Platform;
  store: GpuStore;
  target: ClusterTarget;
  /** The applier services are applied with; absent unless the target is in apply mode. */
  applier?: ClusterApplier;
  /**
   * Reads Jobs and Workloads back: present with the applier, and on a `gitops` cluster read with its read-only
   * credential (its GitOps batch jobs then hold their GPUs until it says they finished).
   */
  client?: KubernetesObjectClient;
  /**
   * Every configured cluster by name with its applier and client (as for `client`): a Job goes to its pool's cluster
   * (`Pool.cluster`) and is read back from the cluster that has it. Omitted: every Job is on `target`.
   */
  clusters?: ReadonlyMap<string, BatchJobCluster>;
  logger: LoggerService;
  /**
   * How long after its submission a GitOps batch job's Job may be missing from its cluster before its reservation is
   * released (see {@link gitopsBatchGraceMs}; {@link DEFAULT_GITOPS_GRACE_MS} when omitted).
   */
  gitopsGraceMs?: number;
  /** Clock (tests). */
  now?: () => Date;
}

/** One cluster batch jobs may run on. */
export interface BatchJobCluster {
  target: ClusterTarget;
  applier?: ClusterApplier;
  client?: KubernetesObjectClient;
}

/**
 * GPU batch jobs: checks a submission against the platform and the team's quota (as the store holds it), renders
 * the indexed Job, and applies it after the team's queue objects (apply mode) or answers it for the GitOps
 * repository; records each submission in the audit trail. Reads a Job's status and Kueue admission back. Its GPUs are
 * held in the quota ledger until its cluster says the Job finished or it is gone: in apply mode, and in GitOps mode
 * when its cluster is read with a (read-only) credential (else a GitOps one is only weighed against the free quota).
 */
export class BatchJobs {
  constructor(private readonly options: BatchJobsOptions) {}

  /**
   * Submits (or with `dryRun` only renders) a batch job.
   *
   * @throws InputError (400) when the platform does not allow the request or the team's quota on the pool can never
   *   hold `minParallelism` pods; ConflictError when a Job of that name exists.
   */
  async submit(
    body: SubmitBatchJobBody,
    actor: string,
  ): Promise<BatchJobSubmission> {
    const { store } = this.options;
    const resolved = resolveBatchJob(this.options.platform, body.request);
    // A pool of a MultiKueue worker: the Job goes to its manager, and Kueue runs it on a worker that admits it.
    const manager = this.multiKueueManager(resolved.pool.cluster);
    if (manager && body.mode !== 'gitops') {
      return submitToMultiKueue(
        this.multiKueueContext(),
        body,
        actor,
        resolved,
        manager,
      );
    }
    await this.checkQuota(resolved);
    const { target, applier, client } = this.clusterOf(resolved.pool.cluster);
    // The Job's cluster holds its own pools and the queues of the teams with quota there (see platformOnCluster).
    const here = platformOnCluster(
      this.options.platform,
      await store.listAllowances(),
      { nodePools: [], alerts: undefined },
      target.name,
    );
    const platform = here.platform;
    const configured =
      target.mode === 'apply' && !applier ? 'dry-run' : target.mode;
    const mode: BatchJobSubmission['mode'] = body.dryRun
      ? 'dry-run'
      : body.mode ?? configured;
    const id = mode === 'dry-run' ? 'dry-run' : randomUUID();
    const job = renderBatchJob(platform, body.request, { batchId: id });
    if (mode === 'apply') {
      await this.refuseExisting(resolved, client);
    }
    // GitOps: held like an apply Job when its cluster is read (the release sweep reads it back); else only weighed.
    const held = mode === 'gitops' && Boolean(client);
    if (held) {
      await this.refuseExisting(resolved, client);
      await this.refuseRecorded(resolved);
    }
    // The ledger's answer: the pods the team's free quota holds now, reserved atomically with it unless a dry run.
    const reservation = await store.reserveBatchJob({
      id,
      name: body.request.name,
      namespace: resolved.namespace,
      team: resolved.team.name,
      environment: resolved.environment.name,
      pool: resolved.pool.name,
      cluster: resolved.pool.cluster,
      mode: mode === 'gitops' && !held ? 'dry-run' : mode,
      parallelism: body.request.parallelism,
      minParallelism: resolved.minParallelism,
      gpusPerPod: body.request.gpusPerPod,
      monthlyCostMicrosPerGpu: this.monthlyCostMicrosPerGpu(resolved.pool.name),
      actor,
    });
    const podsAtOnce = reservation.podsAtOnce;
    const submission = (manifests: KubernetesObject[]): BatchJobSubmission => ({
      id,
      name: body.request.name,
      team: resolved.team.name,
      namespace: resolved.namespace,
      pool: resolved.pool.name,
      mode,
      podsAtOnce,
      // Rendered objects always have apiVersion, kind and metadata.name.
      manifests: manifests as BatchJobSubmission['manifests'],
    });
    if (mode === 'dry-run') return submission([job]);
    let manifests: KubernetesObject[] = [job];
    if (mode === 'apply') {
      manifests = [
        ...teamQueueObjectsFor(
          platform,
          here.allowances,
          resolved.team.name,
          resolved.namespace,
        ),
        job,
      ];
      // Nothing runs when the apply fails: the quota goes back as of when it was taken.
      await applyOrReleaseBatchJob(store, { id, actor }, () =>
        applier!.apply(manifests),
      );
    }
    const { request } = body;
    await store.recordAuditEvent({
      actor,
      action: 'batch-job.submit',
      subjectType: 'batch-job',
      subjectId: id,
      team: resolved.team.name,
      after: {
        name: request.name,
        namespace: resolved.namespace,
        pool: resolved.pool.name,
        mode,
        image: request.image,
        completions: request.completions,
        parallelism: request.parallelism,
        minParallelism: resolved.minParallelism,
        gpusPerPod: request.gpusPerPod,
        podsAtOnce,
      },
    });
    this.options.logger.info('Submitted GPU batch job', {
      batchId: id,
      team: resolved.team.name,
      namespace: resolved.namespace,
      name: request.name,
      mode,
    });
    return submission(manifests);
  }

  /** The live Job and its Kueue Workload (apply clusters, and GitOps clusters read with a read-only credential). */
  async status(namespace: string, name: string): Promise<BatchJobStatus> {
    const { platform } = this.options;
    // MultiKueue managers first: a worker has a copy of a manager's Job (same name) while it runs it.
    const readable = this.allClusters()
      .filter(c => c.client && isRead(c.target))
      .sort(
        (a, b) =>
          Number(Boolean(b.target.multiKueue)) -
          Number(Boolean(a.target.multiKueue)),
      );
    if (readable.length === 0) {
      throw new NotFoundError(
        `No GPU batch job ${namespace}/${name} to read: batch jobs are read from the cluster, and this gpu backend applies to none and reads no GitOps cluster (mode ${this.options.target.mode})`,
      );
    }
    // The first cluster that has the Job; a Job no cluster has is not found.
    let notFound: unknown;
    for (const { client, target } of readable) {
      try {
        const status = await readBatchJobStatus({
          client: client!,
          cluster: target.name ?? '',
          kueueApiVersion: platform.kueue.apiVersion,
          namespace,
          name,
        });
        const ours = (job: BatchJobRecord) =>
          job.namespace === namespace &&
          job.name === name &&
          this.clusterOf(job.cluster).target.name === target.name;
        if (status.workerCluster) {
          for (const job of (
            await this.options.store.listActiveBatchJobs()
          ).filter(ours)) {
            await placeOnWorker(
              this.multiKueueContext(),
              job,
              status,
              BATCH_RELEASE_ACTOR,
            );
          }
        }
        const reason = finishedReason(status.state);
        if (reason) {
          await this.releaseWhere(ours, reason, finishedAt(status));
        }
        return status;
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
        notFound = error;
      }
    }
    throw notFound;
  }

  /**
   * Releases the reservations of batch jobs that have finished (Complete or Failed) or are gone from their cluster,
   * as their cluster reports them: apply clusters, and GitOps clusters read with their read-only credential. A GitOps
   * batch job finished is released as of its finish time (the sweep may read it late); one not found is kept until
   * `gitopsGraceMs` after its submission (its pull request may not be merged and synced yet). A cluster that cannot
   * be read releases nothing of its jobs this time.
   */
  async releaseFinished(): Promise<{
    checked: number;
    released: Array<{ id: string; reason: string }>;
    unreadable: string[];
  }> {
    const { store, platform } = this.options;
    const active = await store.listActiveBatchJobs();
    const released: Array<{ id: string; reason: string }> = [];
    const unreadable: string[] = [];
    let checked = 0;
    for (const job of active) {
      const { client, target } = this.clusterOf(job.cluster);
      if (!client || !isRead(target)) continue;
      checked += 1;
      const gitops = job.mode === 'gitops';
      let reason: string | undefined;
      let at: Date | undefined;
      try {
        const status = await readBatchJobStatus({
          client,
          cluster: target.name ?? '',
          kueueApiVersion: platform.kueue.apiVersion,
          namespace: job.namespace,
          name: job.name,
        });
        await placeOnWorker(
          this.multiKueueContext(),
          job,
          status,
          BATCH_RELEASE_ACTOR,
        );
        reason = finishedReason(status.state);
        if (reason && gitops) at = finishedAt(status);
      } catch (error) {
        if (error instanceof NotFoundError) {
          const now = this.options.now?.() ?? new Date();
          const grace = gitops
            ? this.options.gitopsGraceMs ?? DEFAULT_GITOPS_GRACE_MS
            : APPLYING_GRACE_MS;
          if (now.getTime() - Date.parse(job.submittedAt) < grace) {
            continue;
          }
          reason = gitops
            ? 'the Job is not in its cluster within the GitOps window after its submission'
            : 'the Job is gone from its cluster';
        } else {
          unreadable.push(job.id);
          this.options.logger.warn(
            `Could not read GPU batch job ${job.namespace}/${job.name} to release its quota: ${error}`,
          );
        }
      }
      if (reason) {
        const done = await store.releaseBatchJob({
          id: job.id,
          reason,
          actor: BATCH_RELEASE_ACTOR,
          ...(at ? { at } : {}),
        });
        if (done) released.push({ id: job.id, reason });
      }
    }
    return { checked, released, unreadable };
  }

  /** Releases the active batch jobs `which` selects; GitOps ones as of `at` (their Job's finish time) if known. */
  private async releaseWhere(
    which: (job: BatchJobRecord) => boolean,
    reason: string,
    at?: Date,
  ): Promise<void> {
    const { store } = this.options;
    for (const job of (await store.listActiveBatchJobs()).filter(which)) {
      await store.releaseBatchJob({
        id: job.id,
        reason,
        actor: BATCH_RELEASE_ACTOR,
        ...(at && job.mode === 'gitops' ? { at } : {}),
      });
    }
  }

  /**
   * Refuses a GitOps batch job of a name an active one of its cluster has: its Job is not applied yet, and both would
   * read the same Job back.
   */
  private async refuseRecorded(resolved: ResolvedBatchJob): Promise<void> {
    const cluster = this.clusterOf(resolved.pool.cluster).target.name;
    const taken = (await this.options.store.listActiveBatchJobs()).some(
      j =>
        j.namespace === resolved.namespace &&
        j.name === resolved.request.name &&
        this.clusterOf(j.cluster).target.name === cluster,
    );
    if (taken) {
      throw new ConflictError(
        `A GPU batch job ${resolved.request.name} in namespace ${resolved.namespace} is already submitted and holds its GPUs until its Job finishes; ` +
          'a Job cannot be changed once submitted: choose another name',
      );
    }
  }

  /** The pool's price of one GPU for a month (`hoursPerMonth`), what a reservation's monthly cost counts. */
  private monthlyCostMicrosPerGpu(pool: string): number {
    const price = poolPrices(this.options.platform).get(pool);
    return price
      ? heldCost(price, 1, this.options.platform.hoursPerMonth * 3600)
      : 0;
  }

  /** The MultiKueue manager (with its applier and client) of the worker `cluster`, if it has one. */
  private multiKueueManager(
    cluster: string | undefined,
  ): BatchJobCluster | undefined {
    const all = this.allClusters();
    const manager = multiKueueManagerOf(
      all.map(c => c.target),
      cluster,
    );
    return all.find(c => manager && c.target.name === manager.name);
  }

  private multiKueueContext(): MultiKueueBatchContext {
    const clusters = new Map(
      this.allClusters().map(c => [c.target.name ?? '', c]),
    );
    return {
      platform: this.options.platform,
      store: this.options.store,
      clusters,
      logger: this.options.logger,
      monthlyCostMicrosPerGpu: pool => this.monthlyCostMicrosPerGpu(pool),
      refuseExisting: (resolved, cluster) =>
        this.refuseExisting(resolved, cluster.client),
    };
  }

  /** The cluster of a pool's Jobs: that cluster, else the default one. */
  private clusterOf(cluster: string | undefined): BatchJobCluster {
    const { clusters, target, applier, client } = this.options;
    return (
      (cluster !== undefined ? clusters?.get(cluster) : undefined) ?? {
        target,
        applier,
        client,
      }
    );
  }

  /** The default cluster first, then the others. */
  private allClusters(): BatchJobCluster[] {
    const { clusters, target, applier, client } = this.options;
    const others = [...(clusters?.values() ?? [])].filter(
      c => c.target.name !== target.name,
    );
    return [{ target, applier, client }, ...others];
  }

  /** Pods the team's quota holds at once; refuses a Job whose minimum parallelism it can never hold. */
  private async checkQuota(resolved: ResolvedBatchJob): Promise<number> {
    const { team, pool, request, minParallelism } = resolved;
    const allowance = (await this.options.store.listAllowances()).find(
      a => a.team === team.name,
    );
    const units = allowance ? allowanceUnits(allowance, pool.name) : 0;
    const podsAtOnce = batchPodsAtOnce(units, request.gpusPerPod);
    if (podsAtOnce < minParallelism) {
      const gpus = Math.floor(units / GPU_UNITS_PER_EQUIVALENT);
      throw new InputError(
        `Team ${team.name}'s quota on ${pool.name} is ${gpus} GPU${
          gpus === 1 ? '' : 's'
        }: ` +
          `it holds ${podsAtOnce} pod${podsAtOnce === 1 ? '' : 's'} of ${
            request.gpusPerPod
          } GPU${
            request.gpusPerPod === 1 ? '' : 's'
          } at once, fewer than the ${minParallelism} the Job needs at least (minParallelism), so Kueue would never admit it; ` +
          `lower minParallelism or gpusPerPod, or ask for more quota on ${pool.name}`,
      );
    }
    return podsAtOnce;
  }

  private async refuseExisting(
    resolved: ResolvedBatchJob,
    client: KubernetesObjectClient | undefined,
  ): Promise<void> {
    if (!client) return;
    try {
      await client.read({
        apiVersion: 'batch/v1',
        kind: 'Job',
        namespace: resolved.namespace,
        name: resolved.request.name,
      });
    } catch (error) {
      if (error instanceof KubernetesRequestError && error.statusCode === 404) {
        return;
      }
      throw error;
    }
    throw new ConflictError(
      `A Job ${resolved.request.name} already exists in namespace ${resolved.namespace}; ` +
        'a Job cannot be changed once submitted: choose another name, or delete it first',
    );
  }
}
