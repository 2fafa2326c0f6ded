import { ServiceRequest } from '@gpu-platform/backstage-plugin-gpu-common';
import {
  RUNTIME_PORTS,
  serviceObjectNames,
} from '@gpu-platform/backstage-plugin-gpu-node';
import { describeOnLocalCluster } from '@gpu-platform/backstage-plugin-gpu-node/testUtils';
import { DiscoveryV1Api, V1Deployment, V1Pod } from '@kubernetes/client-node';
import { createServer, request as httpRequest, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import {
  createNamespaces,
  eventually,
  localClusterClients,
  podsOf,
  smallServiceRequest,
  startLocalClusterBackend,
} from './__testUtils__/localCluster';
import { LocalKeda, localKeda } from './__testUtils__/localKeda';
import {
  QueueDepthMetrics,
  ScrapingPrometheus,
  startScrapingPrometheus,
} from './__testUtils__/queueDepthMetrics';
import { prometheusVersionsUnderTest } from './testUtils/prometheus';

jest.setTimeout(10 * 60_000);

const TEAM = 'cluster-autoscaling';
const NAMESPACE = 'cluster-autoscaling';

/** One L4 per replica; the team's quota holds three. */
const L4_QUOTA = 3;

/** KEDA polls every 15 s and the HPA it makes syncs every 15 s: a scale takes up to a minute or two on a busy machine. */
const SCALE_TIMEOUT = { timeoutMs: 4 * 60_000, intervalMs: 1000 };

const queueScaled: ServiceRequest = smallServiceRequest({
  name: 'queue-chat',
  team: TEAM,
  namespace: NAMESPACE,
  tier: 'dedicated',
  pool: 'l4-ondemand',
  autoscaling: {
    minReplicas: 1,
    maxReplicas: 4,
    targetQueueDepth: 2,
    engine: 'keda',
  },
});

const scaledToZero: ServiceRequest = smallServiceRequest({
  name: 'idle-chat',
  team: TEAM,
  namespace: NAMESPACE,
  tier: 'dedicated',
  pool: 'l4-ondemand',
  autoscaling: {
    minReplicas: 0,
    maxReplicas: 1,
    targetQueueDepth: 1,
    engine: 'keda',
  },
});

/** What the stand-in model server answers on /v1/models: vLLM's OpenAI-compatible list. */
const STAND_IN_MODELS = {
  object: 'list',
  data: [{ id: 'stand-in', object: 'model', owned_by: 'autoscaling-test' }],
};

/**
 * A stand-in for the service's vLLM server on loopback (kwok runs no containers): what the interceptor's forward to
 * `<service>.<namespace>:8000` reaches through the service network. Counts the requests it answered.
 */
class StandInModelServer {
  private server?: Server;
  private answered = 0;

  get address(): string {
    return `127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async start() {
    this.server = createServer((_req, res) => {
      this.answered += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(STAND_IN_MODELS));
    });
    await new Promise<void>(resolve =>
      this.server!.listen(0, '127.0.0.1', resolve),
    );
  }

  async answers(): Promise<number> {
    return this.answered;
  }

  async stop() {
    await new Promise(resolve => this.server?.close(resolve));
  }
}

/**
 * A GET to `baseUrl` with the Host header a client of the in-cluster endpoint sends (fetch cannot set Host), answered
 * within the interceptor's hold: up to the 5 minutes `scripts/keda` gives it.
 */
function requestThrough(
  baseUrl: string,
  host: string,
  path: string,
): Promise<{ status: number; coldStart?: string; body: unknown }> {
  const url = new URL(path, baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { headers: { host }, timeout: 5 * 60_000 },
      res => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', chunk => {
          text += chunk;
        });
        res.on('end', () => {
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // Not JSON: the interceptor's or the service network's error text.
          }
          const coldStart = res.headers['x-keda-http-cold-start'];
          resolve({
            status: res.statusCode ?? 0,
            ...(typeof coldStart === 'string' && { coldStart }),
            body,
          });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer in 5 minutes')));
    req.on('error', reject);
    req.end();
  });
}

function isRunning(pod: V1Pod): boolean {
  return (
    pod.status?.phase === 'Running' &&
    !pod.metadata?.deletionTimestamp &&
    (pod.status?.conditions ?? []).some(
      c => c.type === 'Ready' && c.status === 'True',
    )
  );
}

describeOnLocalCluster(
  'Autoscaling on KEDA and its HTTP add-on, with Kueue quota, on a real API server',
  kubeconfig => {
    const clients = localClusterClients(kubeconfig);
    const discovery = clients.kc.makeApiClient(DiscoveryV1Api);
    const metrics = new QueueDepthMetrics(async (namespace, service) =>
      (await podsOf(clients, namespace, serviceObjectNames(service).deployment))
        .filter(isRunning)
        .map(pod => pod.metadata!.name!),
    );
    let prometheus: ScrapingPrometheus | undefined;
    let keda: LocalKeda;
    const modelServer = new StandInModelServer();
    let http: Awaited<ReturnType<typeof startLocalClusterBackend>>['http'];
    let stopBackend: (() => Promise<void>) | undefined;
    const created: string[] = [];

    /** What an earlier run may have left: the autoscalers (KEDA would scale a new run's Deployments) and Deployments. */
    async function removeLeftovers() {
      for (const [group, plural] of [
        ['http.keda.sh', 'httpscaledobjects'],
        ['keda.sh', 'scaledobjects'],
      ]) {
        await clients.custom
          .deleteCollectionNamespacedCustomObject({
            group,
            version: 'v1alpha1',
            namespace: NAMESPACE,
            plural,
          })
          .catch(() => undefined);
      }
      await clients.apps
        .deleteCollectionNamespacedDeployment({ namespace: NAMESPACE })
        .catch(() => undefined);
    }

    async function deployment(name: string): Promise<V1Deployment> {
      return clients.apps.readNamespacedDeployment({
        name: serviceObjectNames(name).deployment,
        namespace: NAMESPACE,
      });
    }

    async function createService(request: ServiceRequest) {
      const res = await http
        .post('/api/gpu/services')
        .send({ request })
        .expect(201);
      created.push(res.body.id);
      return res.body as { id: string };
    }

    async function serviceView(id: string) {
      return (await http.get(`/api/gpu/services/${id}`).expect(200)).body;
    }

    beforeAll(async () => {
      keda = await localKeda(kubeconfig, clients);
      await modelServer.start();
      const binaries = prometheusVersionsUnderTest();
      if (binaries.available.length === 0) {
        throw new Error(
          `No Prometheus to scrape the queue depth: ${
            binaries.missing.join('; ') || 'GPU_PROMETHEUS_BINARIES has none'
          }`,
        );
      }
      await createNamespaces(clients, [NAMESPACE]);
      await removeLeftovers();
      await metrics.start();
      prometheus = await startScrapingPrometheus(
        binaries.available[0].prometheus,
        metrics.url,
      );
      const started = await startLocalClusterBackend({
        kubeconfig,
        groups: [TEAM, 'platform-team'],
        teams: [
          {
            name: TEAM,
            namespaces: [NAMESPACE],
            gpuQuota: { 'l4-ondemand': L4_QUOTA },
            monthlyBudget: '100000',
          },
        ],
        gpu: {
          // The minimum is reserved and priced; replicas above it burst into the team's unreserved quota, where
          // Kueue admits them while it has room (the fourth replica below waits).
          admission: { autoscaledReplicas: 'minimum-plus-burst' },
          statusRefresh: { frequency: { seconds: 1 } },
          serviceDefaults: {
            prometheusServerAddress: prometheus.url,
            scaleToZero: { httpAddOn: { scaledownPeriodSeconds: 5 } },
            scaleDownStabilizationSeconds: 10,
          },
        },
      });
      http = started.http;
      stopBackend = () => started.backend.stop();
    });

    afterEach(async () => {
      for (const id of created.splice(0)) {
        await http.delete(`/api/gpu/services/${id}`);
      }
    });

    afterAll(async () => {
      await removeLeftovers();
      await stopBackend?.();
      await prometheus?.stop();
      await metrics.stop();
      await modelServer.stop();
    });

    it('scales on the queue depth Prometheus scrapes: 1 to 3 within quota, a fourth waits on Kueue, and back down', async () => {
      const { id } = await createService(queueScaled);
      metrics.setDepth(NAMESPACE, queueScaled.name, 0);
      await eventually('the service ready at its minimum', async () => {
        const view = await serviceView(id);
        return view.status === 'ready' ? view : undefined;
      });
      // KEDA's operator took the ScaledObject the backend applied: it made the HPA that scales on the external metric.
      await eventually(
        'the ScaledObject Ready and its HPA made by KEDA',
        async () => {
          const scaled = (await clients.custom.getNamespacedCustomObject({
            group: 'keda.sh',
            version: 'v1alpha1',
            plural: 'scaledobjects',
            namespace: NAMESPACE,
            name: serviceObjectNames(queueScaled.name).autoscaler,
          })) as {
            status?: {
              hpaName?: string;
              conditions?: Array<{
                type: string;
                status: string;
                message?: string;
              }>;
            };
          };
          const ready = scaled.status?.conditions?.find(
            c => c.type === 'Ready',
          );
          if (ready?.status !== 'True' || !scaled.status?.hpaName) {
            throw new Error(JSON.stringify(scaled.status));
          }
          return scaled.status.hpaName;
        },
        SCALE_TIMEOUT,
      );

      // Six requests waiting, two per replica: three replicas, each admitted by Kueue within the team's three L4s.
      metrics.setDepth(NAMESPACE, queueScaled.name, 6);
      await eventually(
        'three running replicas',
        async () => {
          const current = await deployment(queueScaled.name);
          const pods = await podsOf(
            clients,
            NAMESPACE,
            current.metadata!.name!,
          );
          return current.spec?.replicas === 3 &&
            pods.filter(isRunning).length === 3
            ? true
            : undefined;
        },
        SCALE_TIMEOUT,
      );

      // Eight: KEDA asks for four; the fourth pod stays gated, its Workload pending with Kueue's reason on the service.
      metrics.setDepth(NAMESPACE, queueScaled.name, 8);
      const pending = await eventually(
        'a fourth replica waiting for quota, with Kueue’s reason in the service status',
        async () => {
          const view = await serviceView(id);
          const admission = view.clusterStatus?.admission;
          const waiting = admission?.workloads?.find(
            (w: { state: string }) => w.state === 'pending',
          );
          // The status the refresh recorded says why, with Kueue's reason code and message. A GET whose status write
          // loses to the reconciler's (which may have read the Workload before Kueue evaluated it) answers the stored
          // status beside the newer cluster status; the Workload's update event brings the two together.
          if (
            view.clusterStatus?.deployment?.replicas !== 4 ||
            !waiting ||
            view.reason !== 'KueuePending' ||
            !view.statusReason?.includes(waiting.message)
          ) {
            throw new Error(
              JSON.stringify({
                reason: view.reason,
                statusReason: view.statusReason,
                deployment: view.clusterStatus?.deployment,
                admission,
              }),
            );
          }
          return { view, admission, waiting };
        },
        SCALE_TIMEOUT,
      );
      expect(pending.admission.admitted).toBe(3);
      expect(pending.admission.pending).toBe(1);
      expect(pending.waiting.message).toMatch(/quota/i);
      // What the card shows as current and desired replicas: the Deployment's ready replicas and its spec.replicas.
      expect(pending.view.clusterStatus.deployment).toMatchObject({
        replicas: 4,
        readyReplicas: 3,
      });
      expect(pending.view.status).toBe('starting');
      expect(pending.view.statusReason).toContain(pending.waiting.message);
      const pods = await podsOf(
        clients,
        NAMESPACE,
        serviceObjectNames(queueScaled.name).deployment,
      );
      expect(pods.filter(isRunning)).toHaveLength(3);
      expect(
        pods.filter(p => (p.spec?.schedulingGates ?? []).length > 0),
      ).toHaveLength(1);

      // The queue drains: back to the minimum once the (configured 10 s) stabilization window has passed.
      metrics.setDepth(NAMESPACE, queueScaled.name, 0);
      await eventually(
        'one replica again',
        async () => {
          const current = await deployment(queueScaled.name);
          return current.spec?.replicas === 1 ? true : undefined;
        },
        SCALE_TIMEOUT,
      );
    });

    it('idles a scale-to-zero service to 0 replicas through the HTTP add-on, and a request to its endpoint wakes it', async () => {
      const names = serviceObjectNames(scaledToZero.name);
      const { id } = await createService(scaledToZero);
      // The endpoint given is the add-on interceptor's, with the host it routes by.
      const view = await serviceView(id);
      expect(view.endpoint).toBe(
        'http://keda-add-ons-http-interceptor-proxy.keda.svc.cluster.local:8080',
      );
      expect(view.endpointHost).toBe(
        `${names.service}.${NAMESPACE}.svc.cluster.local`,
      );
      // The add-on's operator took the HTTPScaledObject: it made the ScaledObject KEDA scales the Deployment with.
      await eventually(
        'the add-on’s ScaledObject',
        async () =>
          clients.custom.getNamespacedCustomObject({
            group: 'keda.sh',
            version: 'v1alpha1',
            plural: 'scaledobjects',
            namespace: NAMESPACE,
            name: names.autoscaler,
          }),
        SCALE_TIMEOUT,
      );
      // The interceptor routes the host: its admin API counts requests per HTTPScaledObject it has a route for.
      await eventually(
        'the interceptor’s route to the service',
        async () => {
          const counts = await fetch(
            new URL('/queue', keda.interceptorAdminUrl),
          ).then(res => res.json());
          return `${NAMESPACE}/${names.autoscaler}` in counts
            ? true
            : undefined;
        },
        SCALE_TIMEOUT,
      );
      await eventually(
        'the idle service at 0 replicas',
        async () => {
          const current = await deployment(scaledToZero.name);
          return current.spec?.replicas === 0 ? true : undefined;
        },
        SCALE_TIMEOUT,
      );
      // The card's figures: none current, none desired.
      await eventually('the service view at 0 replicas', async () => {
        const idle = await serviceView(id);
        const read = idle.clusterStatus?.deployment;
        return read?.replicas === 0 && read?.readyReplicas === 0
          ? true
          : undefined;
      });

      // Nothing serves it: no pod of the Deployment, and no ready address in its Service's EndpointSlice (what the
      // interceptor waits on before it forwards). The interceptor must have the slice itself: it answers a host whose
      // Service has none in its informer 502 "no matching endpoints found" at once, without waiting. Its admin API
      // does not show its informer, and a service idle from its creation sends the request moments after the
      // EndpointSlice controller made the slice (an answer of that kind failed CI's run), so the slice must be 5 s old.
      await eventually(
        'no pod and no ready endpoint of the idle service, in a slice 5 s old',
        async () => {
          const pods = await podsOf(clients, NAMESPACE, names.deployment);
          const slices = await discovery.listNamespacedEndpointSlice({
            namespace: NAMESPACE,
            labelSelector: `kubernetes.io/service-name=${names.service}`,
          });
          const ready = slices.items.flatMap(slice =>
            (slice.endpoints ?? []).filter(e => e.conditions?.ready !== false),
          );
          const oldEnough = slices.items.some(
            slice =>
              Date.now() -
                (slice.metadata?.creationTimestamp?.getTime() ?? Date.now()) >=
              5000,
          );
          return pods.length === 0 && oldEnough && ready.length === 0
            ? true
            : undefined;
        },
        SCALE_TIMEOUT,
      );

      // A request to the endpoint given, with its Host: the interceptor holds it, the add-on's scaler reports it to
      // KEDA, KEDA scales the Deployment 0 -> 1, and once the replica's EndpointSlice is ready the interceptor
      // forwards it to <service>.<namespace>:8000, which the service network takes to the stand-in model server.
      const answered = await modelServer.answers();
      const removeRoute = keda.route(
        `${names.service}.${NAMESPACE}:${RUNTIME_PORTS.vllm}`,
        modelServer.address,
      );
      // The Deployment's replicas while the request is held.
      const replicasSeen = new Set<number>();
      let holding = true;
      const watching = (async () => {
        while (holding) {
          replicasSeen.add(
            (await deployment(scaledToZero.name)).spec?.replicas ?? -1,
          );
          await new Promise(resolve => setTimeout(resolve, 250));
        }
      })();
      try {
        const response = await requestThrough(
          keda.interceptorUrl,
          view.endpointHost,
          '/v1/models',
        ).finally(() => {
          holding = false;
        });
        expect(response).toEqual({
          status: 200,
          // The add-on says the request waited for the workload to come up from zero.
          coldStart: 'true',
          body: STAND_IN_MODELS,
        });
        expect(await modelServer.answers()).toBe(answered + 1);
        await watching;
        // On a loaded machine one read of the Deployment can outlast the whole wake, so the reads while the request
        // was held may all precede the scale-up: read once more, inside the add-on's 5 s scale-down period.
        replicasSeen.add(
          (await deployment(scaledToZero.name)).spec?.replicas ?? -1,
        );
        expect([...replicasSeen]).toContain(1);
      } finally {
        removeRoute();
      }
    });
  },
);
