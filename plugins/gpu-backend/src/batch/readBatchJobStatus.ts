import type { KubernetesObject } from '@kubernetes/client-node';
import { NotFoundError } from '@backstage/errors';
import {
  BATCH_JOB_LABELS,
  FIELD_MANAGER,
  OWNERSHIP_LABELS,
} from '@gpu-platform/backstage-plugin-gpu-node';
import {
  conditionsOf,
  KUEUE_JOB_UID_LABEL,
  summariseWorkload,
} from '../cluster/summariseClusterStatus';
import { KubernetesRequestError } from '../cluster/errors';
import { KubernetesObjectClient } from '../cluster/types';
import { BatchJobStatus } from './types';

type Json = Record<string, any>;

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

function stateOf(job: Json): BatchJobStatus['state'] {
  const conditions = conditionsOf(job);
  const isTrue = (type: string) =>
    conditions.some(c => c.type === type && c.status === 'True');
  if (isTrue('Complete')) return 'succeeded';
  if (isTrue('Failed')) return 'failed';
  return job.spec?.suspend ? 'suspended' : 'running';
}

/**
 * The batch Job `namespace/name` as the cluster reports it, with its Kueue Workload (labelled
 * `kueue.x-k8s.io/job-uid` with the Job's uid and owned by it). On a MultiKueue manager the Job's status is the one
 * Kueue mirrors from the worker that runs it, named by the Workload's `status.clusterName` (`workerCluster`). A Job
 * that is absent, or that this plugin did not submit (no batch ownership labels), is not found.
 */
export async function readBatchJobStatus(options: {
  client: KubernetesObjectClient;
  cluster: string;
  kueueApiVersion: string;
  namespace: string;
  name: string;
  now?: () => Date;
}): Promise<BatchJobStatus> {
  const { client, namespace, name } = options;
  const notFound = new NotFoundError(
    `No GPU batch job ${namespace}/${name} in cluster ${options.cluster}`,
  );
  let job: Json;
  try {
    job = (await client.read({
      apiVersion: 'batch/v1',
      kind: 'Job',
      namespace,
      name,
    })) as Json;
  } catch (error) {
    if (error instanceof KubernetesRequestError && error.statusCode === 404) {
      throw notFound;
    }
    throw error;
  }
  const labels: Record<string, string> = job.metadata?.labels ?? {};
  if (
    labels[OWNERSHIP_LABELS.managedBy] !== FIELD_MANAGER ||
    labels[OWNERSHIP_LABELS.scope] !== 'batch'
  ) {
    throw notFound;
  }
  const uid = String(job.metadata?.uid);
  const { items } = await client.list({
    apiVersion: options.kueueApiVersion,
    kind: 'Workload',
    namespace,
    labelSelector: `${KUEUE_JOB_UID_LABEL}=${uid}`,
  });
  const workload = items.find((w: KubernetesObject) =>
    (w.metadata?.ownerReferences ?? []).some(
      o => o.kind === 'Job' && o.uid === uid,
    ),
  );
  return {
    name,
    namespace,
    team: labels[OWNERSHIP_LABELS.team] ?? '',
    environment: labels[BATCH_JOB_LABELS.environment] ?? '',
    pool: labels[BATCH_JOB_LABELS.pool] ?? '',
    cluster: options.cluster,
    observedAt: (options.now ?? (() => new Date()))().toISOString(),
    state: stateOf(job),
    parallelism: count(job.spec?.parallelism),
    completions: count(job.spec?.completions),
    active: count(job.status?.active),
    succeeded: count(job.status?.succeeded),
    failed: count(job.status?.failed),
    conditions: conditionsOf(job),
    ...(workload ? { workload: summariseWorkload(workload, new Map()) } : {}),
    ...(typeof (workload as Json | undefined)?.status?.clusterName === 'string'
      ? { workerCluster: (workload as Json).status.clusterName }
      : {}),
  };
}
