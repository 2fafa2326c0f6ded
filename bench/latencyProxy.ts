/**
 * A TCP proxy on loopback in front of an API server, for benchmarks: it forwards bytes unchanged (TLS goes end to
 * end, so certificates, client authentication and the server's address checks are the API server's own), holds every
 * chunk the client sends for `delayMs` before passing it on (in order), and counts the connections it was asked to
 * open: each is one TLS handshake with the API server. With a delay, every request is answered at least `delayMs`
 * late, a new connection's first request twice that (the handshake's client flights are held too).
 */
import { connect, createServer, Socket } from 'node:net';

export interface LatencyProxy {
  /** The loopback port the proxy listens on. */
  readonly port: number;
  /** How long each chunk from a client is held; may be changed at any time (chunks already held keep their time). */
  delayMs: number;
  /** Connections opened through the proxy so far (= TLS handshakes with the API server). */
  connectionsOpened(): number;
  /** Connections open now. */
  connectionsOpen(): number;
  close(): Promise<void>;
}

export async function startLatencyProxy(target: {
  host: string;
  port: number;
}): Promise<LatencyProxy> {
  let opened = 0;
  const sockets = new Set<Socket>();
  const proxy = {
    port: 0,
    delayMs: 0,
    connectionsOpened: () => opened,
    connectionsOpen: () => sockets.size / 2,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>(ok => server.close(() => ok()));
    },
  };

  const server = createServer(client => {
    opened++;
    const upstream = connect(target.port, target.host);
    sockets.add(client);
    sockets.add(upstream);
    const held: Array<{ at: number; chunk: Buffer | undefined }> = [];
    let timer: NodeJS.Timeout | undefined;
    const drain = () => {
      timer = undefined;
      const now = Date.now();
      while (held.length > 0 && held[0].at <= now) {
        const { chunk } = held.shift()!;
        if (chunk === undefined) upstream.end();
        else upstream.write(chunk);
      }
      if (held.length > 0) timer = setTimeout(drain, held[0].at - now);
    };
    // `undefined` is the client's end of stream, passed on in order after what it sent.
    const forward = (chunk: Buffer | undefined) => {
      if (proxy.delayMs <= 0 && held.length === 0) {
        if (chunk === undefined) upstream.end();
        else upstream.write(chunk);
        return;
      }
      const last = held.length > 0 ? held[held.length - 1].at : 0;
      held.push({ at: Math.max(Date.now() + proxy.delayMs, last), chunk });
      if (!timer) timer = setTimeout(drain, held[0].at - Date.now());
    };
    const destroy = () => {
      if (timer) clearTimeout(timer);
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('data', (chunk: Buffer) => forward(chunk));
    client.on('end', () => forward(undefined));
    upstream.on('data', chunk => client.write(chunk));
    upstream.on('end', () => client.end());
    client.on('error', destroy);
    upstream.on('error', destroy);
    client.on('close', destroy);
    upstream.on('close', destroy);
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => ok());
  });
  const address = server.address();
  if (typeof address !== 'object' || !address) {
    throw new Error('the latency proxy has no port');
  }
  proxy.port = address.port;
  return proxy;
}
