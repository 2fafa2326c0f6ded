import { LoggerService } from '@backstage/backend-plugin-api';
import { ConflictError, InputError, NotFoundError } from '@backstage/errors';
import { randomUUID } from 'node:crypto';
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
  renderTeamManifests,
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
import { renderTeamQueueDependencies } from '../reconciler/renderKueueObjects';
import { JOB_COMPLETED, JOB_FAILED } from './batchJobOutcome';
import { multiKueueManagerOf } from './multiKueue';
import {
  MultiKueueBatchContext,
  placeOnWorker,
  submitToMultiKueue,
} from './multiKueueBatch';
import { readBatchJobStatus } from './readBatchJobStatus';
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

/** Why a Job's reservation is released, from the state its cluster reports; undefined while it waits or runs. */
function finishedReason(state: BatchJobStatus['state']): string | undefined {
  if (state === 'succeeded') return JOB_COMPLETED;
  if (state === 'failed') return JOB_FAILED;
  return undefined;
}

/** Collaborators of {@link BatchJobs}. */
export interface BatchJobsOptions {
  platform: Platform;
  store: GpuStore;
  target: ClusterTarget;
  /** The applier services are applied with; absent unless the target is in apply mode. */
  applier?: ClusterApplier;
  /** Reads Jobs and Workloads back; present with the applier. */
  client?: KubernetesObjectClient;
  /**
   * Every configured cluster by name with its applier and client in apply mode: a Job goes to its pool's cluster
   * (`Pool.cluster`) and is read back from the cluster that has it. Omitted: every Job is on `target`.
   */
  clusters?: ReadonlyMap<string, BatchJobCluster>;
  logger: LoggerService;
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
 * repository; records each submission in the audit trail. Reads a Job's status and Kueue admission back.
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
    // The ledger's answer: the pods the team's free quota holds now, reserved atomically with it in apply mode.
    const held = await store.reserveBatchJob({
      id,
      name: body.request.name,
      namespace: resolved.namespace,
      team: resolved.team.name,
      environment: resolved.environment.name,
      pool: resolved.pool.name,
      cluster: resolved.pool.cluster,
      mode,
      parallelism: body.request.parallelism,
      minParallelism: resolved.minParallelism,
      gpusPerPod: body.request.gpusPerPod,
      monthlyCostMicrosPerGpu: this.monthlyCostMicrosPerGpu(resolved.pool.name),
      actor,
    });
    const podsAtOnce = held.podsAtOnce;
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
        ...renderTeamQueueDependencies(
          platform,
          here.allowances,
          resolved.team.name,
        ),
        ...renderTeamManifests(platform, resolved.team.name).filter(
          o => o.metadata?.namespace === resolved.namespace,
        ),
        job,
      ];
      try {
        await applier!.apply(manifests);
      } catch (error) {
        // Nothing runs: give the quota back, as of when it was taken.
        await store.releaseBatchJob({
          id,
          reason: `apply failed: ${(error as Error)?.message ?? error}`.slice(
            0,
            1000,
          ),
          actor,
          rolledBack: true,
        });
        throw error;
      }
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

  /** The live Job and its Kueue Workload (apply mode only). */
  async status(namespace: string, name: string): Promise<BatchJobStatus> {
    const { platform } = this.options;
    // MultiKueue managers first: a worker has a copy of a manager's Job (same name) while it runs it.
    const readable = this.allClusters()
      .filter(c => c.client && c.target.mode === 'apply')
      .sort(
        (a, b) =>
          Number(Boolean(b.target.multiKueue)) -
          Number(Boolean(a.target.multiKueue)),
      );
    if (readable.length === 0) {
      throw new NotFoundError(
        `No GPU batch job ${namespace}/${name} to read: batch jobs are read from the cluster, and this gpu backend applies to none (mode ${this.options.target.mode})`,
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
          await this.releaseWhere(ours, reason);
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
   * as their cluster reports them (apply mode; a GitOps batch job holds no reservation). A cluster that cannot be read
   * releases nothing of its jobs this time.
   */
  async releaseFinished(): Promise<{
    checked: number;
    released: Array<{ id: string; reason: string }>;
    unreadable: string[];
  }> {
    const { store, platform } = this.options;
    const active = (await store.listActiveBatchJobs()).filter(
      j => j.mode === 'apply',
    );
    const released: Array<{ id: string; reason: string }> = [];
    const unreadable: string[] = [];
    let checked = 0;
    for (const job of active) {
      const { client, target } = this.clusterOf(job.cluster);
      if (!client || target.mode !== 'apply') continue;
      checked += 1;
      let reason: string | undefined;
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
      } catch (error) {
        if (error instanceof NotFoundError) {
          const now = this.options.now?.() ?? new Date();
          if (now.getTime() - Date.parse(job.submittedAt) < APPLYING_GRACE_MS) {
            continue;
          }
          reason = 'the Job is gone from its cluster';
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
        });
        if (done) released.push({ id: job.id, reason });
      }
    }
    return { checked, released, unreadable };
  }

  /** Releases the active batch jobs `which` selects. */
  private async releaseWhere(
    which: (job: BatchJobRecord) => boolean,
    reason: string,
  ): Promise<void> {
    const { store } = this.options;
    for (const job of (await store.listActiveBatchJobs()).filter(which)) {
      await store.releaseBatchJob({
        id: job.id,
        reason,
        actor: BATCH_RELEASE_ACTOR,
      });
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
