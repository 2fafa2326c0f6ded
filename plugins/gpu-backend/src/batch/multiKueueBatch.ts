import { LoggerService } from '@backstage/backend-plugin-api';
import { ConflictError, InputError } from '@backstage/errors';
import { randomUUID } from 'node:crypto';
import type { KubernetesObject } from '@kubernetes/client-node';
import {
  allowanceUnits,
  Platform,
  Pool,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  renderBatchJob,
  ResolvedBatchJob,
} from '@gpu-platform/backstage-plugin-gpu-node';
import { ClusterTarget } from '../cluster';
import { BatchJobRecord, BatchJobReservation, GpuStore } from '../database';
import { platformOnCluster } from '../reconciler/platformOnCluster';
import { applyOrReleaseBatchJob, teamQueueObjectsFor } from './applyBatchJob';
import {
  multiKueueCandidatePools,
  multiKueueJob,
  renderMultiKueueManagerObjects,
  workerKubeconfig,
  multiKueueTeamPools,
} from './multiKueue';
import type { BatchJobCluster } from './BatchJobs';
import {
  BatchJobStatus,
  BatchJobSubmission,
  SubmitBatchJobBody,
} from './types';

/** What {@link submitToMultiKueue} and {@link placeOnWorker} need of `BatchJobs`. */
export interface MultiKueueBatchContext {
  platform: Platform;
  store: GpuStore;
  clusters: ReadonlyMap<string, BatchJobCluster>;
  logger: LoggerService;
  monthlyCostMicrosPerGpu(pool: string): number;
  /** Throws ConflictError when the Job exists on the manager. */
  refuseExisting(
    resolved: ResolvedBatchJob,
    cluster: BatchJobCluster,
  ): Promise<void>;
}

/** The pools the team's Job may run on through `manager`, or an InputError saying why there are none. */
function candidatesOf(
  context: MultiKueueBatchContext,
  manager: ClusterTarget,
  resolved: ResolvedBatchJob,
  allowance: Parameters<typeof multiKueueCandidatePools>[4],
): Pool[] {
  const candidates = multiKueueCandidatePools(
    context.platform,
    manager,
    resolved.pool,
    resolved.request.gpusPerPod,
    allowance,
  );
  if (candidates.length === 0) {
    throw new InputError(
      `Team ${resolved.team.name} has no quota on a batch pool of ${
        resolved.pool.gpuModel
      } GPUs on the MultiKueue workers of ${
        manager.name
      } (${manager.multiKueue!.workers.join(
        ', ',
      )}); ask for quota on one of them`,
    );
  }
  return candidates;
}

/**
 * Submits a batch job on a pool of a MultiKueue worker to its manager: the ledger holds the team's quota on the
 * first candidate pool (the requested one first) whose free quota holds `minParallelism` pods; the manager gets its
 * MultiKueue objects, each worker with a candidate pool the team's queue objects, then the Job, managed by
 * `kueue.x-k8s.io/multikueue`. The reservation moves to the pool of the worker that runs it once the manager's
 * Workload names it ({@link placeOnWorker}). Secrets are applied, never answered.
 */
export async function submitToMultiKueue(
  context: MultiKueueBatchContext,
  body: SubmitBatchJobBody,
  actor: string,
  resolved: ResolvedBatchJob,
  managerCluster: BatchJobCluster,
): Promise<BatchJobSubmission> {
  const { store, platform } = context;
  const manager = managerCluster.target;
  const team = resolved.team.name;
  const allowances = await store.listAllowances();
  const allowance = allowances.find(a => a.team === team);
  const candidates = candidatesOf(context, manager, resolved, allowance);
  const mode: BatchJobSubmission['mode'] =
    body.dryRun || !managerCluster.applier ? 'dry-run' : 'apply';
  if (mode === 'apply') {
    await context.refuseExisting(resolved, managerCluster);
  }
  const id = mode === 'dry-run' ? 'dry-run' : randomUUID();
  let held: BatchJobReservation | undefined;
  let pool: Pool | undefined;
  let firstConflict: unknown;
  for (const candidate of candidates) {
    const units = allowance ? allowanceUnits(allowance, candidate.name) : 0;
    if (units <= 0) continue;
    try {
      held = await store.reserveBatchJob({
        id,
        name: body.request.name,
        namespace: resolved.namespace,
        team,
        environment: resolved.environment.name,
        pool: candidate.name,
        cluster: manager.name,
        mode,
        parallelism: body.request.parallelism,
        minParallelism: resolved.minParallelism,
        gpusPerPod: body.request.gpusPerPod,
        monthlyCostMicrosPerGpu: context.monthlyCostMicrosPerGpu(
          candidate.name,
        ),
        actor,
      });
      pool = candidate;
      break;
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      firstConflict ??= error;
    }
  }
  if (!held || !pool) throw firstConflict;
  const request = { ...body.request, pool: pool.name };
  const job = multiKueueJob(
    renderBatchJob(platform, request, { batchId: id }),
    candidates,
  );
  // The team's objects as the platform reconciler keeps them on the manager (its ClusterQueue covers every batch
  // pool of the workers where it has quota), so the two never undo each other's apply.
  const managerObjects = renderMultiKueueManagerObjects({
    platform,
    allowances,
    team,
    workers:
      mode === 'apply'
        ? manager.multiKueue!.workers.map(name => ({
            name,
            kubeconfig: workerKubeconfig(context.clusters.get(name)!.target),
          }))
        : [],
    candidates: multiKueueTeamPools(platform, manager, allowance),
  }).filter(o => o.kind !== 'Namespace');
  const answered = (manifests: KubernetesObject[]): BatchJobSubmission => ({
    id,
    name: body.request.name,
    team,
    namespace: resolved.namespace,
    pool: pool!.name,
    mode,
    podsAtOnce: held!.podsAtOnce,
    manifests: manifests.filter(
      o => o.kind !== 'Secret',
    ) as BatchJobSubmission['manifests'],
  });
  if (mode === 'dry-run') return answered([...managerObjects, job]);
  // Nothing runs when an apply fails: the quota goes back as of when it was taken.
  await applyOrReleaseBatchJob(store, { id, actor }, async () => {
    // Each worker with a candidate pool: the team's queue objects there (same namespace and LocalQueue name).
    for (const worker of new Set(candidates.map(c => c.cluster!))) {
      const here = platformOnCluster(
        platform,
        allowances,
        { nodePools: [], alerts: undefined },
        worker,
      );
      await context.clusters
        .get(worker)!
        .applier!.apply(
          teamQueueObjectsFor(
            here.platform,
            here.allowances,
            team,
            resolved.namespace,
          ),
        );
    }
    await managerCluster.applier!.apply([
      ...managerObjects.filter(
        o =>
          o.kind !== 'LocalQueue' ||
          o.metadata?.namespace === resolved.namespace,
      ),
      job,
    ]);
  });
  await store.recordAuditEvent({
    actor,
    action: 'batch-job.submit',
    subjectType: 'batch-job',
    subjectId: id,
    team,
    after: {
      name: request.name,
      namespace: resolved.namespace,
      pool: pool.name,
      cluster: manager.name,
      multiKueueCandidatePools: candidates.map(c => c.name),
      mode,
      image: request.image,
      completions: request.completions,
      parallelism: request.parallelism,
      minParallelism: resolved.minParallelism,
      gpusPerPod: request.gpusPerPod,
      podsAtOnce: held.podsAtOnce,
    },
  });
  context.logger.info('Submitted GPU batch job to a MultiKueue manager', {
    batchId: id,
    team,
    namespace: resolved.namespace,
    name: request.name,
    cluster: manager.name ?? '',
  });
  return answered([...managerObjects, job]);
}

/**
 * Once the manager's Workload names the worker that admitted a batch job (`status.workerCluster`), records it on the
 * batch job and moves its reservation to that worker's pool: the pool it holds when it is that worker's, else the
 * first candidate pool of that worker.
 */
export async function placeOnWorker(
  context: MultiKueueBatchContext,
  job: BatchJobRecord,
  status: BatchJobStatus,
  actor: string,
): Promise<void> {
  const worker = status.workerCluster;
  if (!worker || job.workerCluster === worker) return;
  const manager = job.cluster
    ? context.clusters.get(job.cluster)?.target
    : undefined;
  if (!manager?.multiKueue) return;
  const { platform, store } = context;
  const held = platform.pools.find(p => p.name === job.pool);
  let pool = held?.cluster === worker ? held : undefined;
  if (!pool && held) {
    const allowance = (await store.listAllowances()).find(
      a => a.team === job.team,
    );
    pool = multiKueueCandidatePools(
      platform,
      manager,
      held,
      job.gpusPerPod,
      allowance,
    ).find(p => p.cluster === worker);
  }
  if (!pool) {
    context.logger.warn(
      `GPU batch job ${job.namespace}/${job.name} runs on MultiKueue worker ${worker}, which has no batch pool of team ${job.team}'s; its reservation stays on ${job.pool}`,
    );
    return;
  }
  await store.placeBatchJob({
    id: job.id,
    workerCluster: worker,
    pool: pool.name,
    monthlyCostMicrosPerGpu: context.monthlyCostMicrosPerGpu(pool.name),
    actor,
  });
}
