import type { KubernetesObject } from '@kubernetes/client-node';
import { KubernetesRequestError } from '../cluster/errors';
import {
  KubernetesObjectClient,
  ListOptions,
  ObjectRef,
} from '../cluster/types';
import { readBatchJobStatus } from './readBatchJobStatus';

const labels = {
  'app.kubernetes.io/managed-by': 'backstage-gpu',
  'gpu.backstage.io/scope': 'batch',
  'gpu.backstage.io/team': 'search',
  'gpu.backstage.io/pool': 'spot-l4',
  'gpu.backstage.io/environment': 'dev',
};

function job(overrides: Record<string, any> = {}): KubernetesObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'ocr', namespace: 'search', uid: 'job-uid', labels },
    spec: { parallelism: 6, completions: 24, suspend: false },
    status: { active: 6, succeeded: 3, failed: 1 },
    ...overrides,
  } as KubernetesObject;
}

const admittedWorkload = {
  metadata: {
    name: 'job-ocr-1',
    ownerReferences: [{ kind: 'Job', uid: 'job-uid', name: 'ocr' }],
  },
  status: {
    conditions: [
      { type: 'QuotaReserved', status: 'True' },
      { type: 'Admitted', status: 'True' },
    ],
    admission: {
      clusterQueue: 'gpu-search',
      podSetAssignments: [
        { name: 'main', count: 6, flavors: { 'nvidia.com/gpu': 'spot-l4' } },
      ],
    },
  },
};

function client(
  live: KubernetesObject | undefined,
  workloads: unknown[] = [],
): KubernetesObjectClient & { lists: ListOptions[] } {
  const lists: ListOptions[] = [];
  return {
    lists,
    apply: async o => o,
    delete: async () => {},
    async read(ref: ObjectRef) {
      if (!live) {
        throw new KubernetesRequestError(
          `jobs "${ref.name}" not found`,
          'http',
          404,
        );
      }
      return live;
    },
    async list(options) {
      lists.push(options);
      return { items: workloads as KubernetesObject[] };
    },
    serves: async () => true,
  };
}

const read = (c: KubernetesObjectClient) =>
  readBatchJobStatus({
    client: c,
    cluster: 'local',
    kueueApiVersion: 'kueue.x-k8s.io/v1beta2',
    namespace: 'search',
    name: 'ocr',
    now: () => new Date('2026-12-01T12:00:00Z'),
  });

describe('readBatchJobStatus', () => {
  it('reads a running Job and the Workload it owns, found by its uid label', async () => {
    const other = {
      ...admittedWorkload,
      metadata: {
        name: 'other',
        ownerReferences: [{ kind: 'Job', uid: 'another-uid' }],
      },
    };
    const c = client(job(), [other, admittedWorkload]);
    expect(await read(c)).toEqual({
      name: 'ocr',
      namespace: 'search',
      team: 'search',
      environment: 'dev',
      pool: 'spot-l4',
      cluster: 'local',
      observedAt: '2026-12-01T12:00:00.000Z',
      state: 'running',
      parallelism: 6,
      completions: 24,
      active: 6,
      succeeded: 3,
      failed: 1,
      conditions: [],
      workload: {
        name: 'job-ocr-1',
        state: 'admitted',
        clusterQueue: 'gpu-search',
        podSets: [
          { name: 'main', count: 6, flavors: { 'nvidia.com/gpu': 'spot-l4' } },
        ],
      },
    });
    expect(c.lists).toEqual([
      {
        apiVersion: 'kueue.x-k8s.io/v1beta2',
        kind: 'Workload',
        namespace: 'search',
        labelSelector: 'kueue.x-k8s.io/job-uid=job-uid',
      },
    ]);
  });

  it.each([
    [{ spec: { suspend: true } }, 'suspended'],
    [
      { status: { conditions: [{ type: 'Complete', status: 'True' }] } },
      'succeeded',
    ],
    [
      { status: { conditions: [{ type: 'Failed', status: 'True' }] } },
      'failed',
    ],
  ])('reports %j as %s', async (overrides, state) => {
    const status = await read(client(job(overrides)));
    expect(status.state).toBe(state);
    expect(status.workload).toBeUndefined();
  });

  it('does not find a Job that is absent or that the plugin did not submit', async () => {
    await expect(read(client(undefined))).rejects.toThrow(
      'No GPU batch job search/ocr in cluster local',
    );
    const foreign = job({
      metadata: { name: 'ocr', namespace: 'search', uid: 'u', labels: {} },
    });
    await expect(read(client(foreign))).rejects.toThrow(
      'No GPU batch job search/ocr in cluster local',
    );
  });
});
