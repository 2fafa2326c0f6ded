import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { fakeKubernetesApi } from './__testUtils__/fakeKubernetesApi';
import { KubernetesRequestError } from './errors';
import { KubernetesClientFactory } from './KubernetesClientFactory';

const BASE = 'https://reads.test:6443';
const PODS = `${BASE}/api/v1/namespaces/ml-platform/pods`;
const DEPLOYMENT = `${BASE}/apis/apps/v1/namespaces/ml-platform/deployments/summariser`;

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

function client() {
  // API discovery and the rest from the fake API server; the requests under test from the handlers of each test.
  server.use(...fakeKubernetesApi(BASE).handlers);
  return new KubernetesClientFactory({ requestTimeoutMs: 2_000 }).forCluster(
    'gpu-eu',
    { type: 'serviceAccount', url: BASE, serviceAccountToken: 'token' },
  );
}

/** Answers the first `cut` requests with a lost connection, the rest with `answer`. */
function cutFirst(cut: number, answer: () => Response) {
  let requests = 0;
  return {
    requests: () => requests,
    resolver: () => {
      requests += 1;
      return requests <= cut ? HttpResponse.error() : answer();
    },
  };
}

describe('KubernetesClientFactory clients', () => {
  it('send a read whose connection failed again at once, up to three times', async () => {
    const pods = cutFirst(2, () =>
      HttpResponse.json({
        apiVersion: 'v1',
        kind: 'PodList',
        metadata: { resourceVersion: '7' },
        items: [
          { metadata: { name: 'summariser-0', namespace: 'ml-platform' } },
        ],
      }),
    );
    const pods1 = client();
    server.use(http.get(PODS, pods.resolver));
    const list = await pods1.list({
      apiVersion: 'v1',
      kind: 'Pod',
      namespace: 'ml-platform',
    });
    expect(list.items.map(p => p.metadata?.name)).toEqual(['summariser-0']);
    expect(pods.requests()).toBe(3);

    const cutAlways = cutFirst(10, () => HttpResponse.json({}));
    const deployments = client();
    server.use(http.get(DEPLOYMENT, cutAlways.resolver));
    const failure = await deployments
      .read({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        namespace: 'ml-platform',
        name: 'summariser',
      })
      .catch(error => error);
    expect(failure).toBeInstanceOf(KubernetesRequestError);
    expect(failure.failure).toBe('network');
    expect(cutAlways.requests()).toBe(3);
  });

  it('keep at most 8 requests in flight, one per socket, the others waiting their turn', async () => {
    let inFlight = 0;
    let most = 0;
    const pods = client();
    server.use(
      http.get(PODS, async () => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        await new Promise(resolve => setTimeout(resolve, 50));
        inFlight -= 1;
        return HttpResponse.json({
          apiVersion: 'v1',
          kind: 'PodList',
          metadata: { resourceVersion: '7' },
          items: [],
        });
      }),
    );
    const lists = await Promise.all(
      Array.from({ length: 20 }, () =>
        pods.list({ apiVersion: 'v1', kind: 'Pod', namespace: 'ml-platform' }),
      ),
    );
    expect(lists).toHaveLength(20);
    expect(most).toBe(8);
  });

  it('send a write whose connection failed once: its caller decides whether to try again', async () => {
    const patches = cutFirst(1, () => HttpResponse.json({}));
    const writer = client();
    server.use(http.patch(DEPLOYMENT, patches.resolver));
    const failure = await writer
      .apply({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'summariser', namespace: 'ml-platform' },
      })
      .catch(error => error);
    expect(failure).toBeInstanceOf(KubernetesRequestError);
    expect(failure.failure).toBe('network');
    expect(patches.requests()).toBe(1);
  });
});
