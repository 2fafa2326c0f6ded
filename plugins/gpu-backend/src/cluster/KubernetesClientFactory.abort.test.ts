import {
  createServer,
  IncomingMessage,
  Server,
  ServerResponse,
} from 'node:http';
import { AddressInfo } from 'node:net';
import { KubernetesClientFactory } from './KubernetesClientFactory';

/**
 * A loopback API server that answers discovery of `v1` and holds every other request open until the client goes
 * away, recording when each one closed.
 */
function silentApiServer() {
  const held: Array<{ url: string; closed: Promise<void> }> = [];
  const server: Server = createServer(
    (req: IncomingMessage, res: ServerResponse) => {
      if (req.url === '/api/v1') {
        res.setHeader('Content-Type', 'application/json');
        res.end(
          JSON.stringify({
            kind: 'APIResourceList',
            groupVersion: 'v1',
            resources: [
              { name: 'pods', namespaced: true, kind: 'Pod', verbs: ['list'] },
            ],
          }),
        );
        return;
      }
      held.push({
        url: req.url ?? '',
        closed: new Promise(resolve => res.on('close', () => resolve())),
      });
    },
  );
  return {
    held,
    async start(): Promise<string> {
      await new Promise<void>(resolve =>
        server.listen(0, '127.0.0.1', resolve),
      );
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise(resolve => server.close(resolve));
    },
  };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise(resolve => setTimeout(resolve, 10));
}

describe('KubernetesClientFactory clients given a signal', () => {
  const api = silentApiServer();
  let url: string;
  beforeAll(async () => {
    url = await api.start();
  });
  afterAll(() => api.stop());

  // Plain HTTP on loopback, which the library allows only with TLS verification off.
  const client = () =>
    new KubernetesClientFactory({ requestTimeoutMs: 60_000 }).forCluster(
      'gpu-eu',
      {
        type: 'serviceAccount',
        url,
        serviceAccountToken: 'token',
        skipTLSVerify: true,
      },
    );

  it('abort a list in flight: the call rejects with the reason and the connection closes', async () => {
    const pods = client();
    const controller = new AbortController();
    const list = pods.list({
      apiVersion: 'v1',
      kind: 'Pod',
      signal: controller.signal,
    });
    const outcome = list.catch(error => error);
    await until(() => api.held.some(r => r.url.startsWith('/api/v1/pods')));
    const reason = new Error('informer stopped');
    controller.abort(reason);
    expect(await outcome).toBe(reason);
    const request = api.held.find(r => r.url.startsWith('/api/v1/pods'))!;
    await request.closed;
  });

  it('abort API discovery in flight', async () => {
    const controller = new AbortController();
    const served = client()
      .serves('widgets.example.com/v1', 'Widget', {
        signal: controller.signal,
      })
      .catch(error => error);
    await until(() =>
      api.held.some(r => r.url === '/apis/widgets.example.com/v1'),
    );
    controller.abort(new Error('informer stopped'));
    expect(await served).toEqual(new Error('informer stopped'));
    await api.held.find(r => r.url === '/apis/widgets.example.com/v1')!.closed;
  });

  it('end a watch whose API discovery is in flight: closed, the discovery aborted', async () => {
    const controller = new AbortController();
    const watching = new KubernetesClientFactory({ requestTimeoutMs: 60_000 })
      .watchClientFor('gpu-eu', {
        type: 'serviceAccount',
        url,
        serviceAccountToken: 'token',
        skipTLSVerify: true,
      })
      .watch(
        {
          apiVersion: 'gadgets.example.com/v1',
          kind: 'Gadget',
          resourceVersion: '1',
          timeoutSeconds: 60,
        },
        () => undefined,
        controller.signal,
      );
    await until(() =>
      api.held.some(r => r.url === '/apis/gadgets.example.com/v1'),
    );
    controller.abort();
    expect(await watching).toEqual({ outcome: 'closed' });
    await api.held.find(r => r.url === '/apis/gadgets.example.com/v1')!.closed;
  });

  it('take a request waiting for a connection out of the queue, its slot never used', async () => {
    const pods = client();
    const holders = new AbortController();
    const heldBefore = api.held.length;
    // Eight lists fill the client's eight connections; the ninth waits for one.
    const inFlight = Array.from({ length: 8 }, () =>
      pods
        .list({ apiVersion: 'v1', kind: 'Pod', signal: holders.signal })
        .catch(() => undefined),
    );
    await until(() => api.held.length === heldBefore + 8);
    const waiting = new AbortController();
    const ninth = pods
      .list({ apiVersion: 'v1', kind: 'Pod', signal: waiting.signal })
      .catch(error => error);
    waiting.abort(new Error('gave up'));
    expect(await ninth).toEqual(new Error('gave up'));
    holders.abort();
    await Promise.all(inFlight);
    // The aborted ninth took no slot: a tenth request is sent at once.
    const tenth = new AbortController();
    const sent = pods
      .list({ apiVersion: 'v1', kind: 'Pod', signal: tenth.signal })
      .catch(() => undefined);
    await until(() => api.held.length === heldBefore + 9);
    tenth.abort();
    await sent;
  });
});
