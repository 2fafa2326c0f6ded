import { mockServices } from '@backstage/backend-test-utils';
import type { KubernetesObject } from '@kubernetes/client-node';
import {
  KubernetesWatchClient,
  WatchEnd,
  WatchEvent,
  WatchOptions,
} from '../cluster';
import { ServiceObjectWatches } from './ServiceObjectWatches';

const SERVICE_LABELS = {
  'app.kubernetes.io/managed-by': 'backstage-gpu',
  'gpu.backstage.io/service-id': 'svc-1',
};

/**
 * A cluster whose watch of each kind sends the given events, then stays open until stopped; of the add-ons' kinds it
 * serves those in `addOns` (`apiVersion/kind`), and it records what discovery was asked.
 */
function clusterSending(
  events: Record<string, WatchEvent[]>,
  addOns: string[] = [],
) {
  const selectors: Record<string, string | undefined> = {};
  const fieldSelectors: Record<string, string> = {};
  const askedServes: string[] = [];
  let release: (() => void) | undefined;
  const podsSent = new Promise<void>(resolve => {
    release = resolve;
  });
  const client: KubernetesWatchClient = {
    async list() {
      return { items: [], resourceVersion: '1' };
    },
    async serves(apiVersion, kind) {
      askedServes.push(`${apiVersion}/${kind}`);
      return addOns.includes(`${apiVersion}/${kind}`);
    },
    async watch(
      options: WatchOptions,
      onEvent: (event: WatchEvent) => void,
      signal: AbortSignal,
    ) {
      selectors[options.kind] = options.labelSelector;
      if (options.fieldSelector)
        fieldSelectors[options.kind] = options.fieldSelector;
      // Workload events come after the pod's, as Kueue makes a pod's Workload once the pod exists.
      if (options.kind === 'Workload') await podsSent;
      for (const event of events[options.kind] ?? []) onEvent(event);
      if (options.kind === 'Pod') release?.();
      return new Promise<WatchEnd>(resolve => {
        signal.addEventListener('abort', () => resolve({ outcome: 'closed' }));
      });
    },
  };
  return { client, selectors, fieldSelectors, askedServes };
}

/** Managed fields of the product's apply, and of a status written by another manager. */
const PRODUCT_APPLY_FIELDS = {
  manager: 'backstage-gpu',
  operation: 'Apply',
  apiVersion: 'v1',
  fieldsV1: { 'f:metadata': { 'f:labels': {} } },
};
const KUBELET_STATUS_FIELDS = {
  manager: 'kubelet',
  operation: 'Update',
  apiVersion: 'v1',
  subresource: 'status',
  fieldsV1: { 'f:status': { 'f:conditions': {} } },
};

function object(
  name: string,
  fields: Partial<KubernetesObject['metadata']>,
): KubernetesObject {
  return {
    metadata: { name, namespace: 'team', resourceVersion: '2', ...fields },
  };
}

describe('ServiceObjectWatches', () => {
  it('enqueues the service of a Deployment, a Pod, and a Workload through the pod that owns it; watches no add-on’s kind the cluster does not serve', async () => {
    const { client, selectors, fieldSelectors, askedServes } = clusterSending({
      // A Warning event about the pod: indexed for its status read, enqueues nothing.
      Event: [
        {
          type: 'ADDED',
          object: {
            ...object('chat-1.17a', {}),
            involvedObject: { kind: 'Pod', name: 'chat-1' },
            type: 'Warning',
          } as KubernetesObject,
        },
      ],
      Deployment: [
        { type: 'DELETED', object: object('chat', { labels: SERVICE_LABELS }) },
      ],
      Pod: [
        {
          type: 'MODIFIED',
          object: object('chat-1', {
            labels: SERVICE_LABELS,
            uid: 'pod-uid',
            managedFields: [KUBELET_STATUS_FIELDS],
          }),
        },
      ],
      Workload: [
        {
          type: 'MODIFIED',
          object: object('pod-chat-1', {
            labels: { 'kueue.x-k8s.io/job-uid': 'pod-uid' },
            ownerReferences: [
              { apiVersion: 'v1', kind: 'Pod', name: 'chat-1', uid: 'pod-uid' },
            ],
          }),
        },
        {
          type: 'MODIFIED',
          object: object('pod-other', {
            ownerReferences: [
              { apiVersion: 'v1', kind: 'Pod', name: 'x', uid: 'not-ours' },
            ],
          }),
        },
      ],
    });
    const enqueued: string[] = [];
    const watches = new ServiceObjectWatches({
      clusters: [{ name: 'local', client }],
      kueueApiVersion: 'kueue.x-k8s.io/v1beta2',
      enqueue: id => enqueued.push(id),
      logger: mockServices.logger.mock(),
    });
    watches.start();
    await watches.hasSynced();
    for (let i = 0; i < 400 && enqueued.length < 3; i++) {
      await new Promise(r => setTimeout(r, 5));
    }
    // A service's Deployments, ReplicaSets, pods and claims by its label, Workloads by their pod's UID, for its status
    // read; other kinds are not indexed.
    const indexed = watches.indexedObjects('local');
    const pod = { apiVersion: 'v1', kind: 'Pod' };
    expect(indexed(pod, 'team', 'svc-1')?.map(p => p.metadata?.name)).toEqual([
      'chat-1',
    ]);
    // The product applies no pod: its managed fields are not kept.
    expect(indexed(pod, 'team', 'svc-1')?.[0].metadata).not.toHaveProperty(
      'managedFields',
    );
    expect(indexed(pod, 'team', 'svc-2')).toEqual([]);
    expect(
      indexed({ apiVersion: 'apps/v1', kind: 'ReplicaSet' }, 'team', 'svc-1'),
    ).toEqual([]);
    expect(
      indexed(
        { apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'Workload' },
        'team',
        'pod-uid',
      )?.map(w => w.metadata?.name),
    ).toEqual(['pod-chat-1']);
    expect(
      indexed({ apiVersion: 'v1', kind: 'Event' }, 'team', 'Pod/chat-1')?.map(
        e => e.metadata?.name,
      ),
    ).toEqual(['chat-1.17a']);
    expect(
      indexed({ apiVersion: 'v1', kind: 'Service' }, 'team', 'svc-1'),
    ).toBeUndefined();
    await watches.stop();
    expect(enqueued).toEqual(['svc-1', 'svc-1', 'svc-1']);
    expect(selectors).toEqual({
      Deployment:
        'app.kubernetes.io/managed-by=backstage-gpu,gpu.backstage.io/service-id',
      ReplicaSet:
        'app.kubernetes.io/managed-by=backstage-gpu,gpu.backstage.io/service-id',
      Pod: 'app.kubernetes.io/managed-by=backstage-gpu,gpu.backstage.io/service-id',
      Workload: 'kueue.x-k8s.io/job-uid',
      Service:
        'app.kubernetes.io/managed-by=backstage-gpu,gpu.backstage.io/service-id',
      PersistentVolumeClaim:
        'app.kubernetes.io/managed-by=backstage-gpu,gpu.backstage.io/service-id',
      HorizontalPodAutoscaler:
        'app.kubernetes.io/managed-by=backstage-gpu,gpu.backstage.io/service-id',
      PodDisruptionBudget:
        'app.kubernetes.io/managed-by=backstage-gpu,gpu.backstage.io/service-id',
      LocalQueue: 'app.kubernetes.io/managed-by=backstage-gpu',
      Event: undefined,
    });
    expect(fieldSelectors).toEqual({ Event: 'type=Warning' });
    expect(watches.counts()).toMatchObject({ lists: 10, events: 5 });
    // Discovery is asked about the add-ons' kinds only.
    expect(askedServes.sort()).toEqual([
      'http.keda.sh/v1alpha1/HTTPScaledObject',
      'keda.sh/v1alpha1/ScaledObject',
      'monitoring.coreos.com/v1/PodMonitor',
      'monitoring.coreos.com/v1/PrometheusRule',
      'resource.k8s.io/v1/ResourceClaimTemplate',
    ]);
  });

  it('knows the live objects of the kinds services apply, and enqueues the service of a Service or claim, of an autoscaler, budget or served add-on’s object added or deleted, not of a team’s queue', async () => {
    const labelsOf = (id: string) => ({
      ...SERVICE_LABELS,
      'gpu.backstage.io/service-id': id,
    });
    const { client, selectors } = clusterSending(
      {
        Service: [
          {
            type: 'DELETED',
            object: object('gone', {
              labels: labelsOf('svc-2'),
              resourceVersion: '6',
            }),
          },
          {
            type: 'ADDED',
            object: object('chat', {
              labels: SERVICE_LABELS,
              resourceVersion: '7',
              managedFields: [PRODUCT_APPLY_FIELDS, KUBELET_STATUS_FIELDS],
            }),
          },
        ],
        PersistentVolumeClaim: [
          {
            type: 'ADDED',
            object: object('chat-cache', {
              labels: SERVICE_LABELS,
              resourceVersion: '4',
            }),
          },
          {
            type: 'MODIFIED',
            object: object('chat-cache', {
              labels: SERVICE_LABELS,
              resourceVersion: '5',
            }),
          },
          {
            type: 'DELETED',
            object: object('batch-cache', {
              labels: labelsOf('svc-3'),
              resourceVersion: '9',
            }),
          },
        ],
        // Their status changes as pods come and go: only their coming and going enqueues.
        HorizontalPodAutoscaler: [
          {
            type: 'ADDED',
            object: object('chat', { labels: labelsOf('svc-4') }),
          },
          {
            type: 'MODIFIED',
            object: object('chat', { labels: labelsOf('svc-4') }),
          },
        ],
        PodDisruptionBudget: [
          {
            type: 'ADDED',
            object: object('chat', { labels: labelsOf('svc-5') }),
          },
          {
            type: 'MODIFIED',
            object: object('chat', { labels: labelsOf('svc-5') }),
          },
          {
            type: 'DELETED',
            object: object('chat', { labels: labelsOf('svc-5') }),
          },
        ],
        LocalQueue: [
          {
            type: 'ADDED',
            object: object('team-queue', { resourceVersion: '8' }),
          },
        ],
        // KEDA writes its status as it scales: as for an HPA, only its coming and going enqueues.
        ScaledObject: [
          {
            type: 'ADDED',
            object: object('chat', { labels: labelsOf('svc-6') }),
          },
          {
            type: 'MODIFIED',
            object: object('chat', { labels: labelsOf('svc-6') }),
          },
        ],
      },
      ['keda.sh/v1alpha1/ScaledObject'],
    );
    const enqueued: string[] = [];
    const watches = new ServiceObjectWatches({
      clusters: [{ name: 'local', client }],
      kueueApiVersion: 'kueue.x-k8s.io/v1beta2',
      enqueue: id => enqueued.push(id),
      logger: mockServices.logger.mock(),
    });
    const live = watches.liveObjects('local');
    const service = { apiVersion: 'v1', kind: 'Service', namespace: 'team' };
    expect(live({ ...service, name: 'chat' })).toBeUndefined(); // not listed yet
    watches.start();
    await watches.hasSynced();
    const queue = {
      apiVersion: 'kueue.x-k8s.io/v1beta2',
      kind: 'LocalQueue',
      namespace: 'team',
      name: 'team-queue',
    };
    const scaledObject = {
      apiVersion: 'keda.sh/v1alpha1',
      kind: 'ScaledObject',
      namespace: 'team',
      name: 'chat',
    };
    for (
      let i = 0;
      i < 400 &&
      (!live(queue)?.object ||
        !live(scaledObject)?.object ||
        enqueued.length < 9);
      i++
    ) {
      await new Promise(r => setTimeout(r, 5));
    }
    expect(live({ ...service, name: 'chat' })).toMatchObject({
      object: { metadata: { name: 'chat' } },
      resourceVersion: '7',
    });
    // Of an applied kind's managed fields, those of its status subresource are not kept (liveSignature ignores them).
    expect(
      live({ ...service, name: 'chat' })?.object?.metadata?.managedFields,
    ).toEqual([PRODUCT_APPLY_FIELDS]);
    expect(live(queue)).toMatchObject({ resourceVersion: '8' });
    expect(live({ ...service, name: 'other' })).toEqual({
      object: undefined,
      resourceVersion: '7',
    });
    expect(
      live({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        name: 'x',
        namespace: 'team',
      }),
    ).toBeUndefined();
    expect(live({ ...service, name: 'chat' })).toBeDefined();
    // A served add-on's kind is followed; one the cluster does not serve has no view (its objects are read).
    expect(live(scaledObject)).toMatchObject({
      object: { metadata: { name: 'chat' } },
    });
    expect(
      live({
        ...scaledObject,
        apiVersion: 'http.keda.sh/v1alpha1',
        kind: 'HTTPScaledObject',
      }),
    ).toBeUndefined();
    expect(selectors.ScaledObject).toBe(
      'app.kubernetes.io/managed-by=backstage-gpu,gpu.backstage.io/service-id',
    );
    expect(selectors).not.toHaveProperty('HTTPScaledObject');
    await watches.stop();
    // One per event of a Service or claim, per addition or deletion of an autoscaler, budget or add-on's object, none
    // of the queue (a team's).
    expect(enqueued.sort()).toEqual([
      'svc-1',
      'svc-1',
      'svc-1',
      'svc-2',
      'svc-3',
      'svc-4',
      'svc-5',
      'svc-5',
      'svc-6',
    ]);
  });
});
