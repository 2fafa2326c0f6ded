import { mockServices } from '@backstage/backend-test-utils';
import type { CoreV1Event } from '@kubernetes/client-node';
import {
  createNamespaces,
  describeOnLocalCluster,
  eventually,
  localClusterClients,
} from '@gpu-platform/backstage-plugin-gpu-backend/testUtils';
import { KubernetesClientFactory, WARNING_EVENTS } from '../cluster';
import { ServiceObjectWatches } from './ServiceObjectWatches';

jest.setTimeout(60_000);

/** One namespace per run, so events of an earlier run on the same cluster are not counted. */
const NAMESPACE = `watches-${Date.now().toString(36)}`;

describeOnLocalCluster(
  'ServiceObjectWatches on a real API server',
  kubeconfig => {
    const clients = localClusterClients(kubeconfig);
    let watches: ServiceObjectWatches | undefined;

    beforeAll(() => createNamespaces(clients, [NAMESPACE]));
    afterAll(async () => {
      await watches?.stop();
      await clients.core
        .deleteNamespace({ name: NAMESPACE })
        .catch(() => undefined);
    });

    /** An event about a pod as the kubelet records one (core/v1). */
    function eventAbout(pod: string, type: 'Warning' | 'Normal'): CoreV1Event {
      const now = new Date();
      return {
        metadata: {
          name: `${pod}.${type.toLowerCase()}`,
          namespace: NAMESPACE,
        },
        involvedObject: { kind: 'Pod', name: pod, namespace: NAMESPACE },
        reason: type === 'Warning' ? 'BackOff' : 'Pulled',
        message: `an event of type ${type}`,
        type,
        count: 1,
        firstTimestamp: now,
        lastTimestamp: now,
        source: { component: 'kubelet' },
      };
    }

    it('follows the Warning events only, indexed by the object they are about, without their managed fields', async () => {
      watches = new ServiceObjectWatches({
        clusters: [
          {
            name: 'local',
            client: new KubernetesClientFactory().watchClientFor('local', {
              type: 'kubeconfig',
              path: kubeconfig,
            }),
          },
        ],
        kueueApiVersion: 'kueue.x-k8s.io/v1beta2',
        enqueue: () => undefined,
        logger: mockServices.logger.mock(),
      });
      watches.start();
      await watches.hasSynced();
      const indexed = watches.indexedObjects('local');
      const about = (pod: string) =>
        indexed(WARNING_EVENTS, NAMESPACE, `Pod/${pod}`);
      expect(about('chat-0')).toEqual([]);

      for (const type of ['Normal', 'Warning'] as const) {
        await clients.core.createNamespacedEvent({
          namespace: NAMESPACE,
          body: eventAbout('chat-0', type),
        });
      }
      await clients.core.createNamespacedEvent({
        namespace: NAMESPACE,
        body: eventAbout('other-0', 'Warning'),
      });
      const seen = await eventually(
        'the Warning events in the informer',
        async () => (about('other-0')?.length ? about('chat-0') : undefined),
        { timeoutMs: 10_000, intervalMs: 100 },
      );
      // The API server filters by type (the Normal event never reaches the informer); the index by subject.
      expect(seen.map(e => e.metadata?.name)).toEqual(['chat-0.warning']);
      expect(seen[0].metadata).not.toHaveProperty('managedFields');
      expect(watches.counts().failures).toBe(0);
    });
  },
);
