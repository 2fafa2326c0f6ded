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
 * With `--socks <host:port>` it also serves SOCKS5 (CONNECT, no authentication) there, for the interceptor's forward.
 * Through an HTTP proxy Go sends a plain-HTTP request in absolute form with the request's Host header as the URL's
 * host (net/http Request.write: `ruri = scheme + "://" + host + ruri`), and the interceptor keeps the client's Host
 * (`pr.Out.Host = pr.In.Host`): the proxy sees `http://<service>.<namespace>.svc.cluster.local/...`, the name the
 * client called, without the port of the Service the interceptor dialed, so it cannot route it. Through SOCKS5 Go
 * dials the address it would dial in a cluster (`<service>.<namespace>:<port>`) and sends the request unchanged, Host
 * and all: what kube-proxy does.
 *
 *   node --require sucrase/register autoscaling/setup/serviceNetwork.ts --listen 127.0.0.1:<port> --routes <dir>
 *     [--socks 127.0.0.1:<port>]
 */
import {
  createServer,
  request,
  IncomingMessage,
  ServerResponse,
} from 'node:http';
import { connect, createServer as createTcpServer, Socket } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

function optionalOption(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

function option(name: string): string {
  const value = optionalOption(name);
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

/** Replies of RFC 1928: succeeded, host unreachable, command not supported. */
const SOCKS_OK = 0x00;
const SOCKS_HOST_UNREACHABLE = 0x04;
const SOCKS_COMMAND_NOT_SUPPORTED = 0x07;

function socksReply(client: Socket, code: number) {
  // VER, REP, RSV, ATYP IPv4, BND.ADDR 0.0.0.0, BND.PORT 0.
  client.write(Buffer.from([0x05, code, 0x00, 0x01, 0, 0, 0, 0, 0, 0]));
}

/**
 * One SOCKS5 connection (RFC 1928, no authentication, CONNECT): the greeting, then the request naming the address,
 * then the tunnel to its route. Reads as much as has arrived and waits for the rest.
 */
function socks(client: Socket) {
  let buffer = Buffer.alloc(0);
  let greeted = false;
  const onData = (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    if (!greeted) {
      // VER 5, NMETHODS, METHODS...
      if (buffer.length < 2 || buffer.length < 2 + buffer[1]) return;
      if (buffer[0] !== 0x05) {
        client.destroy();
        return;
      }
      const methods = buffer.subarray(2, 2 + buffer[1]);
      buffer = buffer.subarray(2 + buffer[1]);
      greeted = true;
      // 0x00: no authentication; 0xff: none of the methods offered is acceptable.
      client.write(Buffer.from([0x05, methods.includes(0x00) ? 0x00 : 0xff]));
      if (!methods.includes(0x00)) {
        client.end();
        return;
      }
    }
    // VER 5, CMD, RSV, ATYP, DST.ADDR, DST.PORT
    if (buffer.length < 5) return;
    const [, command, , addressType] = buffer;
    let host: string;
    let end: number;
    if (addressType === 0x01) {
      end = 4 + 4;
      if (buffer.length < end + 2) return;
      host = [...buffer.subarray(4, end)].join('.');
    } else if (addressType === 0x03) {
      end = 5 + buffer[4];
      if (buffer.length < end + 2) return;
      host = buffer.subarray(5, end).toString('utf8');
    } else if (addressType === 0x04) {
      end = 4 + 16;
      if (buffer.length < end + 2) return;
      const words: string[] = [];
      for (let i = 4; i < end; i += 2) {
        words.push(buffer.readUInt16BE(i).toString(16));
      }
      host = words.join(':');
    } else {
      client.destroy();
      return;
    }
    const port = buffer.readUInt16BE(end);
    const rest = buffer.subarray(end + 2);
    client.off('data', onData);
    if (command !== 0x01) {
      socksReply(client, SOCKS_COMMAND_NOT_SUPPORTED);
      client.end();
      return;
    }
    const to = target(host, String(port));
    if (!to) {
      process.stdout.write(`service network: no route to ${host}:${port}\n`);
      socksReply(client, SOCKS_HOST_UNREACHABLE);
      client.end();
      return;
    }
    const upstream = connect(to.port, to.host, () => {
      socksReply(client, SOCKS_OK);
      if (rest.length > 0) upstream.write(rest);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => {
      if (!client.destroyed) {
        socksReply(client, SOCKS_HOST_UNREACHABLE);
        client.destroy();
      }
    });
    client.on('error', () => upstream.destroy());
  };
  client.on('data', onData);
  client.on('error', () => client.destroy());
}

const server = createServer(forward);
server.on('connect', tunnel);
server.listen(Number(listenPort), listenHost, () => {
  process.stdout.write(
    `service network listening on ${listenHost}:${listenPort}\n`,
  );
});

const socksListen = optionalOption('socks');
if (socksListen) {
  const [socksHost, socksPort] = socksListen.split(':');
  createTcpServer(socks).listen(Number(socksPort), socksHost, () => {
    process.stdout.write(
      `service network (SOCKS5) listening on ${socksHost}:${socksPort}\n`,
    );
  });
}
