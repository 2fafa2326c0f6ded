/**
 * The service network of the local cluster, for KEDA's HTTP add-on run out of cluster by `scripts/keda` (not part of
 * the product). In a cluster, cluster DNS and kube-proxy take the add-on's processes to each other and to the scaled
 * workloads: the KEDA operator dials the external scaler at `keda-add-ons-http-external-scaler.keda:<port>`, the
 * scaler reads the interceptors' admin addresses from an EndpointSlice and asks each for its queue counts, and the
 * interceptor forwards a request to `<service>.<namespace>:<port>`. Here the processes run on the host, so they are
 * started with this proxy as their `HTTP_PROXY` / `HTTPS_PROXY` (Go's HTTP clients and gRPC honour them; loopback
 * addresses such as the API server's are never proxied), and it stands in for DNS and kube-proxy: each virtual
 * address (`host:port`; `.svc` and `.svc.cluster.local` are dropped from hosts) goes to the loopback address its route
 * names. An unknown address answers 502.
 *
 * Routes are the JSON maps (`{"<virtual host:port>": "127.0.0.1:<port>"}`) of every `*.json` file in `--routes`,
 * read for each connection: `scripts/keda up` writes the add-on's own, a test adds the Services it runs stand-in
 * servers for.
 *
 *   node --require sucrase/register autoscaling/setup/serviceNetwork.ts --listen 127.0.0.1:<port> --routes <dir>
 */
import {
  createServer,
  request,
  IncomingMessage,
  ServerResponse,
} from 'node:http';
import { connect, Socket } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

function option(name: string): string {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? process.argv[index + 1] : undefined;
  if (value === undefined) throw new Error(`missing --${name}`);
  return value;
}

const routesDir = option('routes');
const [listenHost, listenPort] = option('listen').split(':');

function routes(): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const file of readdirSync(routesDir).filter(f => f.endsWith('.json'))) {
    try {
      Object.assign(
        merged,
        JSON.parse(readFileSync(join(routesDir, file), 'utf8')),
      );
    } catch {
      // A file being written; the next connection reads it whole.
    }
  }
  return merged;
}

/** `host:port` without the cluster domain, lower case. */
function virtualAddress(host: string, port: string): string {
  const bare = host.toLowerCase().replace(/\.svc(\.cluster\.local)?\.?$/, '');
  return `${bare}:${port}`;
}

function target(
  host: string,
  port: string,
): { host: string; port: number } | undefined {
  const to = routes()[virtualAddress(host, port)];
  if (!to) return undefined;
  const index = to.lastIndexOf(':');
  return { host: to.slice(0, index), port: Number(to.slice(index + 1)) };
}

/** An absolute-form request (`GET http://service.namespace:8000/v1/models`), forwarded as it came. */
function forward(req: IncomingMessage, res: ServerResponse) {
  let url: URL;
  try {
    url = new URL(req.url ?? '');
  } catch {
    res.writeHead(400).end('service network: absolute URL expected\n');
    return;
  }
  const to = target(url.hostname, url.port || '80');
  if (!to) {
    res.writeHead(502).end(`service network: no route to ${url.host}\n`);
    return;
  }
  const upstream = request(
    {
      host: to.host,
      port: to.port,
      method: req.method,
      path: `${url.pathname}${url.search}`,
      headers: req.headers,
    },
    answer => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on('error', error => {
    if (!res.headersSent) res.writeHead(502);
    res.end(`service network: ${error.message}\n`);
  });
  req.pipe(upstream);
}

/** A CONNECT tunnel (gRPC through HTTPS_PROXY). */
function tunnel(req: IncomingMessage, client: Socket, head: Buffer) {
  const [host, port] = (req.url ?? '').split(':');
  const to = target(host, port ?? '443');
  if (!to) {
    client.end(`HTTP/1.1 502 Bad Gateway\r\n\r\n`);
    return;
  }
  const upstream = connect(to.port, to.host, () => {
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.on('error', () => client.destroy());
  client.on('error', () => upstream.destroy());
}

const server = createServer(forward);
server.on('connect', tunnel);
server.listen(Number(listenPort), listenHost, () => {
  process.stdout.write(
    `service network listening on ${listenHost}:${listenPort}\n`,
  );
});
