import type { V1Job } from '@kubernetes/client-node';
import { Platform } from '@gpu-platform/backstage-plugin-gpu-common';
import { podHostResources } from '../hostResources';
import { distinctTaints } from '../kueue/distinctTaints';
import { tolerationsFor } from '../kueue/tolerationsFor';
import { ownershipLabels } from '../labels';
import { localQueueName } from '../names/queueNames';
import { KUEUE_LABELS } from '../service/serviceLabels';
import { resolveBatchJob } from './resolveBatchJob';
import { BATCH_JOB_LABELS, BatchJobOptions, BatchJobRequest } from './types';

/**
 * Name of the worker container (the `FailJob` rule's `containerName`).
 *
 * @public
 */
export const BATCH_WORKER_CONTAINER = 'worker';

/**
 * The indexed `Job` (batch/v1) of a GPU batch request, for Kueue to admit from the team's LocalQueue:
 *
 * - `completionMode: Indexed` with `completions` and `parallelism`; created `suspend: true`, Kueue unsuspends it on
 *   admission. When parallelism is above `minParallelism`, the `kueue.x-k8s.io/job-min-parallelism` annotation
 *   enables Kueue's partial admission: Kueue admits the Job with the parallelism the quota holds (at least the
 *   minimum) instead of waiting for all of it.
 * - `podFailurePolicy`: a pod the node took away (condition `DisruptionTarget`, as on a spot reclaim, a drain or a
 *   preemption) is ignored, neither counted against `backoffLimit` nor failing the Job; an exit code of
 *   `nonRetriableExitCodes` fails the Job at once; other failures count against `backoffLimit`.
 * - the pool's node labels as `nodeSelector` and tolerations of its taints (those Kueue's ResourceFlavor also
 *   injects), `gpusPerPod` of the pool's GPU resource, and host CPU and memory within what the ClusterQueue grants
 *   per GPU (see {@link podHostResources}).
 *
 * @throws GpuDomainError on a request the platform does not allow (see `resolveBatchJob`).
 * @public
 */
export function renderBatchJob(
  platform: Platform,
  request: BatchJobRequest,
  options: BatchJobOptions,
): V1Job {
  const resolved = resolveBatchJob(platform, request);
  const { pool, team, environment, namespace, gpuResource } = resolved;
  const labels: Record<string, string> = {
    'app.kubernetes.io/name': request.name,
    'app.kubernetes.io/component': 'batch-worker',
    ...ownershipLabels('batch', { team: team.name }),
    [BATCH_JOB_LABELS.batchId]: options.batchId,
    [BATCH_JOB_LABELS.pool]: pool.name,
    [BATCH_JOB_LABELS.environment]: environment.name,
    [KUEUE_LABELS.queueName]: localQueueName(team.name),
    [KUEUE_LABELS.priorityClass]: environment.priorityClass,
  };
  const podsCount = Math.min(request.parallelism, request.completions);
  const annotations =
    podsCount > resolved.minParallelism
      ? { [BATCH_JOB_LABELS.minParallelism]: String(resolved.minParallelism) }
      : undefined;
  const host = podHostResources({
    tier: 'dedicated',
    gpusPerReplica: request.gpusPerPod,
    weightsBytes: 0,
  });
  const gpus = String(request.gpusPerPod);
  const taints = distinctTaints(pool);
  const env = Object.entries(request.env ?? {})
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, value]) => ({ name, value }));
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: request.name, namespace, labels, annotations },
    spec: {
      completionMode: 'Indexed',
      completions: request.completions,
      parallelism: request.parallelism,
      suspend: true,
      backoffLimit: request.backoffLimit,
      podFailurePolicy: {
        rules: [
          {
            action: 'Ignore',
            onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }],
          },
          {
            action: 'FailJob',
            onExitCodes: {
              containerName: BATCH_WORKER_CONTAINER,
              operator: 'In',
              values: resolved.nonRetriableExitCodes,
            },
          },
        ],
      },
      template: {
        metadata: { labels },
        spec: {
          // A pod failure policy needs pods that are not restarted in place.
          restartPolicy: 'Never',
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          nodeSelector:
            Object.keys(pool.nodeLabels).length > 0
              ? { ...pool.nodeLabels }
              : undefined,
          tolerations: taints.length > 0 ? tolerationsFor(taints) : undefined,
          containers: [
            {
              name: BATCH_WORKER_CONTAINER,
              image: request.image,
              command: request.command?.length
                ? [...request.command]
                : undefined,
              args: request.args?.length ? [...request.args] : undefined,
              env: env.length > 0 ? env : undefined,
              resources: {
                requests: {
                  cpu: String(host.cpu),
                  memory: `${host.memoryRequestGiB}Gi`,
                  [gpuResource]: gpus,
                },
                limits: {
                  memory: `${host.memoryLimitGiB}Gi`,
                  [gpuResource]: gpus,
                },
              },
            },
          ],
        },
      },
    },
  };
}
