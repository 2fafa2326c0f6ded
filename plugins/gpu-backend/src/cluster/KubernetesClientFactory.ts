import {
  ApiException,
  createConfiguration,
  KubeConfig,
  KubernetesObject,
  KubernetesObjectApi,
  Middleware,
  PatchStrategy,
  RequestContext,
  ResponseContext,
  SecurityAuthentication,
  ServerConfiguration,
  Watch,
} from '@kubernetes/client-node';
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { Agent } from 'node:https';
import { FIELD_MANAGER } from '@gpu-platform/backstage-plugin-gpu-node';
import { KubernetesRequestError } from './errors';
import {
  DeleteOptions,
  ClusterConnection,
  KubernetesObjectClient,
  KubernetesWatchClient,
  ListOptions,
  ObjectRef,
  ServesOptions,
  WatchEnd,
  WatchEvent,
  WatchOptions,
} from './types';

const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** Connections one cluster client keeps open and reuses. */
const MAX_SOCKETS_PER_CLUSTER = 8;

/**
 * Times a read (GET) whose connection failed is sent at once. The client's node-fetch 2 reports a response read over
 * a reused kept-alive socket as cut ("Premature close") although it was complete (node-fetch/node-fetch#1767; on Node
 * 22.23.5, bench/twoReplicas.ts saw the status reads of 3 to 5 of 6 services fail so at every refresh for minutes,
 * leaving them ClusterUnreachable), and a pooled socket the server has just closed fails the same way: a read is safe
 * to send again. Writes keep their callers' retries with backoff.
 */
const READ_ATTEMPTS = 3;

/** Options of {@link KubernetesClientFactory}. */
export interface KubernetesClientFactoryOptions {
  /** Field manager of server-side apply; `backstage-gpu` when omitted. */
  fieldManager?: string;
  /** Abort a request (including API discovery) after this long; 30 s when omitted. */
  requestTimeoutMs?: number;
}

/** The client-node KubeConfig of a configured connection, its context selected. */
export function kubeConfigFor(
  name: string,
  connection: ClusterConnection,
): KubeConfig {
  const kc = new KubeConfig();
  if (connection.type === 'kubeconfig') {
    kc.loadFromFile(connection.path);
    if (connection.context) {
      if (!kc.getContextObject(connection.context)) {
        throw new Error(
          `Cluster '${name}': kubeconfig ${connection.path} has no context '${connection.context}'`,
        );
      }
      kc.setCurrentContext(connection.context);
    }
    return kc;
  }
  kc.loadFromOptions({
    clusters: [
      {
        name,
        server: connection.url,
        caData: connection.caData,
        caFile: connection.caFile,
        skipTLSVerify: connection.skipTLSVerify ?? false,
      },
    ],
    users: [{ name: 'backstage-gpu', token: connection.serviceAccountToken }],
    contexts: [{ name, cluster: name, user: 'backstage-gpu' }],
    currentContext: name,
  });
  return kc;
}

/**
 * `KubernetesObjectApi` answering lists with the JSON the API server sent. The library deserializes a list of a kind
 * it has no model for (custom resources such as Kueue Workloads) with object metadata, which drops the list's
 * `metadata.continue`, so paging would stop after the first page; known kinds would lose the fields the library's
 * models do not have.
 */
class PlainListObjectApi extends KubernetesObjectApi {
  /** API discovery of one kind: its resource, or undefined when its group version lists no such kind. */
  async discover(apiVersion: string, kind: string) {
    return this.resource(apiVersion, kind);
  }

  protected async processResponse<T extends KubernetesObject>(
    response: ResponseContext,
    type?: string,
  ): Promise<T> {
    if (response.httpStatusCode < 200 || response.httpStatusCode > 299) {
      return super.processResponse<T>(response, type);
    }
    const text = await response.body.text();
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      data = undefined;
    }
    const list = data as { kind?: unknown; items?: unknown } | undefined;
    if (
      typeof list?.kind === 'string' &&
      list.kind.endsWith('List') &&
      Array.isArray(list.items)
    ) {
      return list as T;
    }
    return super.processResponse<T>(
      new ResponseContext(response.httpStatusCode, response.headers, {
        text: async () => text,
        binary: async () => Buffer.from(text),
      }),
      type,
    );
  }
}

/**
 * The caller's signal of the request being sent (`ListOptions.signal`, `ServesOptions.signal`): the library's calls take
 * no signal, and its middleware sees only the request, so the signal reaches the middleware through the call's
 * asynchronous context.
 */
const callerSignal = new AsyncLocalStorage<AbortSignal>();

function makeObjectApi(
  kc: KubeConfig,
  requestTimeoutMs: number,
): PlainListObjectApi {
  const cluster = kc.getCurrentCluster();
  if (!cluster) {
    throw new Error('The kubeconfig has no current cluster');
  }
  const timeout: Middleware = {
    pre: async context => {
      const timedOut = AbortSignal.timeout(requestTimeoutMs);
      const caller = callerSignal.getStore();
      context.setSignal(
        caller ? AbortSignal.any([caller, timedOut]) : timedOut,
      );
      return context;
    },
    post: async response => response,
  };
  // KubernetesObjectApi.makeApiClient offers no middleware; build the same
  // configuration with a per-request timeout added.
  return new PlainListObjectApi(
    createConfiguration({
      baseServer: new ServerConfiguration(cluster.server, {}),
      authMethods: { default: keptAliveAuthentication(kc) },
      promiseMiddleware: [timeout],
    }),
  );
}

/**
 * The kubeconfig's authentication, with its connections kept alive and reused: the library gives every request a new
 * TLS agent (a new connection and handshake per request); this swaps it for one kept-alive agent per set of TLS
 * settings (CA, client certificate, server name), so a rotated certificate gets a new one. Proxy agents are left as
 * they are.
 */
function keptAliveAuthentication(kc: KubeConfig): SecurityAuthentication {
  const agents = new Map<string, Agent>();
  return {
    getName: () => kc.getName(),
    async applySecurityAuthentication(context: RequestContext) {
      await kc.applySecurityAuthentication(context);
      const agent = context.getAgent();
      if (!agent || agent.constructor !== Agent) return;
      const options = (agent as Agent).options;
      const key = createHash('sha256')
        .update(
          JSON.stringify(
            [
              options.ca,
              options.cert,
              options.key,
              options.pfx,
              options.passphrase,
              options.servername,
              options.rejectUnauthorized,
            ].map(value => (value === undefined ? null : String(value))),
          ),
        )
        .digest('hex');
      let shared = agents.get(key);
      if (!shared) {
        shared = new Agent({
          ...options,
          keepAlive: true,
          maxSockets: MAX_SOCKETS_PER_CLUSTER,
        });
        agents.set(key, shared);
      }
      context.setAgent(shared);
    },
  };
}

/**
 * At most `size` requests in flight; the others wait here, in order, rather than in the agent's queue. A request the
 * agent queues is handed a kept-alive socket the moment the previous response on it ends, before that response has
 * closed, and node-fetch 2 then takes the finished response for one cut ("Premature close", node-fetch#1767): with
 * a burst of status reads, most of them failed so. Waiting here also keeps the queueing out of each request's
 * timeout, which starts when the request is sent.
 */
class RequestSlots {
  private readonly waiting: Array<() => void> = [];

  constructor(private free: number) {}

  /** Runs `request` in a free slot; `signal` aborted while it waits for one, it leaves the queue and rejects. */
  async run<T>(request: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    if (this.free > 0) {
      this.free -= 1;
    } else {
      await this.turn(signal);
    }
    try {
      return await request();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free += 1;
    }
  }

  private turn(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let onAbort = () => {};
      const granted = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      onAbort = () => {
        this.waiting.splice(this.waiting.indexOf(granted), 1);
        reject(signal!.reason);
      };
      this.waiting.push(granted);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

class ObjectApiClient implements KubernetesObjectClient {
  /** One slot per socket of the client's agent. */
  private readonly slots = new RequestSlots(MAX_SOCKETS_PER_CLUSTER);

  constructor(
    private readonly api: PlainListObjectApi,
    private readonly fieldManager: string,
    private readonly requestTimeoutMs: number,
  ) {}

  async apply(object: KubernetesObject): Promise<KubernetesObject> {
    // The library fills in defaults on the object it is given; keep ours intact.
    const applied = await this.call(() =>
      this.api.patch(
        structuredClone(object),
        undefined,
        undefined,
        this.fieldManager,
        true,
        PatchStrategy.ServerSideApply,
      ),
    );
    return toPlain(applied);
  }

  async read(ref: ObjectRef): Promise<KubernetesObject> {
    const live = await this.sendRead(() => this.api.read(header(ref)));
    return toPlain(live);
  }

  async list(options: ListOptions): Promise<{
    items: KubernetesObject[];
    continueToken?: string;
    resourceVersion?: string;
  }> {
    const list = await this.sendRead(
      () =>
        this.api.list(
          options.apiVersion,
          options.kind,
          options.namespace,
          undefined,
          undefined,
          undefined,
          options.fieldSelector,
          options.labelSelector,
          options.limit,
          options.continueToken,
        ),
      options.signal,
    );
    // Plain JSON (see PlainListObjectApi), not the library's list model (which calls it `_continue`).
    const metadata = list.metadata as
      | { continue?: string; resourceVersion?: string }
      | undefined;
    const continueToken = metadata?.continue;
    return {
      items: list.items.map(toPlain),
      ...(continueToken ? { continueToken } : {}),
      ...(metadata?.resourceVersion
        ? { resourceVersion: metadata.resourceVersion }
        : {}),
    };
  }

  async delete(ref: ObjectRef, options?: DeleteOptions): Promise<void> {
    await this.call(() =>
      this.api.delete(
        header(ref),
        undefined,
        undefined,
        undefined,
        undefined,
        options?.orphanDependents ? 'Orphan' : undefined,
      ),
    );
  }

  async serves(
    apiVersion: string,
    kind: string,
    options: ServesOptions = {},
  ): Promise<boolean> {
    try {
      return Boolean(
        await this.sendRead(
          () => this.api.discover(apiVersion, kind),
          options.signal,
        ),
      );
    } catch (error) {
      // Discovery answers 404 for a group version the cluster does not serve.
      if (error instanceof KubernetesRequestError && error.statusCode === 404) {
        return false;
      }
      throw error;
    }
  }

  /** Sends `request` in a slot; `signal` aborted, it rejects with the signal's reason (the request aborted with it). */
  private async call<T>(
    request: () => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    try {
      return await this.slots.run(
        signal ? () => callerSignal.run(signal, request) : request,
        signal,
      );
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw toRequestError(error, this.requestTimeoutMs);
    }
  }

  /** A read, sent again at once when its connection failed (not when it timed out), up to {@link READ_ATTEMPTS}. */
  private async sendRead<T>(
    request: () => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.call(request, signal);
      } catch (error) {
        if (
          !(error instanceof KubernetesRequestError) ||
          error.failure !== 'network' ||
          attempt >= READ_ATTEMPTS
        ) {
          throw error;
        }
      }
    }
  }
}

/** Longest silence on a watch past its server-side timeout before it counts as cut (a half-open connection). */
const WATCH_SILENCE_GRACE_MS = 30_000;

/**
 * Lists through the object client and watches with the library's `Watch` (a streaming GET of
 * `/api(s)/<group version>/<resource>?watch=true` in every namespace). The resource's path comes from API discovery.
 * A watch that hears nothing, not even a bookmark, for its timeout and a grace period is aborted as cut.
 */
class WatchClient implements KubernetesWatchClient {
  constructor(
    private readonly objects: ObjectApiClient,
    private readonly api: PlainListObjectApi,
    private readonly kc: KubeConfig,
    private readonly requestTimeoutMs: number,
  ) {}

  list(options: ListOptions) {
    return this.objects.list(options);
  }

  serves(apiVersion: string, kind: string, options?: ServesOptions) {
    return this.objects.serves(apiVersion, kind, options);
  }

  async watch(
    options: WatchOptions,
    onEvent: (event: WatchEvent) => void,
    signal: AbortSignal,
  ): Promise<WatchEnd> {
    let path: string;
    try {
      // Discovery of the kind's path, when not cached, is aborted with the watch.
      path = await callerSignal.run(signal, () =>
        this.pathOf(options.apiVersion, options.kind),
      );
    } catch (error) {
      if (signal.aborted) return { outcome: 'closed' };
      return {
        outcome: 'failed',
        error: toRequestError(error, this.requestTimeoutMs),
      };
    }
    return new Promise<WatchEnd>(resolve => {
      let settled = false;
      let request: AbortController | undefined;
      let silence: ReturnType<typeof setTimeout> | undefined;
      let onAbort: () => void = () => undefined;
      const finish = (end: WatchEnd) => {
        if (settled) return;
        settled = true;
        clearTimeout(silence);
        signal.removeEventListener('abort', onAbort);
        request?.abort();
        resolve(end);
      };
      onAbort = () => finish({ outcome: 'closed' });
      const heard = () => {
        clearTimeout(silence);
        silence = setTimeout(
          () =>
            finish({
              outcome: 'failed',
              error: new KubernetesRequestError(
                `the watch was silent for ${options.timeoutSeconds} s and more`,
                'timeout',
              ),
            }),
          options.timeoutSeconds * 1000 + WATCH_SILENCE_GRACE_MS,
        );
        silence.unref?.();
      };
      if (signal.aborted) {
        onAbort();
        return;
      }
      signal.addEventListener('abort', onAbort);
      heard();
      new Watch(this.kc)
        .watch(
          path,
          {
            labelSelector: options.labelSelector,
            fieldSelector: options.fieldSelector,
            resourceVersion: options.resourceVersion,
            allowWatchBookmarks: true,
            timeoutSeconds: options.timeoutSeconds,
          },
          (type: string, object: WatchEvent['object']) => {
            if (settled) return;
            heard();
            onEvent({ type: type as WatchEvent['type'], object });
          },
          (error: unknown) => {
            if (!error) {
              finish({ outcome: 'closed' });
            } else if ((error as { statusCode?: number }).statusCode === 410) {
              finish({ outcome: 'expired' });
            } else {
              finish({
                outcome: 'failed',
                error: watchError(error, this.requestTimeoutMs),
              });
            }
          },
        )
        .then(
          controller => {
            request = controller;
            if (settled) controller.abort();
          },
          error =>
            finish({
              outcome: 'failed',
              error: toRequestError(error, this.requestTimeoutMs),
            }),
        );
    });
  }

  private async pathOf(apiVersion: string, kind: string): Promise<string> {
    const resource = await this.api.discover(apiVersion, kind);
    if (!resource) {
      throw new KubernetesRequestError(
        `the cluster serves no ${kind} in ${apiVersion}`,
        'http',
        404,
      );
    }
    const prefix = apiVersion.includes('/') ? '/apis' : '/api';
    return `${prefix}/${apiVersion}/${resource.name}`;
  }
}

/** A watch's failure: the status code the library put on it, else as any other request failure. */
function watchError(
  error: unknown,
  requestTimeoutMs: number,
): KubernetesRequestError {
  const statusCode = (error as { statusCode?: unknown }).statusCode;
  if (typeof statusCode === 'number') {
    return new KubernetesRequestError(
      (error as Error).message || `HTTP ${statusCode}`,
      'http',
      statusCode,
      undefined,
      error,
    );
  }
  const failure = toRequestError(error, requestTimeoutMs);
  // A stream cut mid-way (reset, aborted, premature close) is a lost connection whatever the library called it.
  return failure.failure === 'client'
    ? new KubernetesRequestError(
        failure.message,
        'network',
        undefined,
        undefined,
        error,
      )
    : failure;
}

function header(ref: ObjectRef) {
  return {
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    metadata: {
      name: ref.name,
      ...(ref.namespace ? { namespace: ref.namespace } : {}),
    },
  };
}

/** Typed model instances (with Date fields) as the JSON the API server sent. */
function toPlain(object: KubernetesObject): KubernetesObject {
  return JSON.parse(JSON.stringify(object));
}

function toRequestError(
  error: unknown,
  requestTimeoutMs: number,
): KubernetesRequestError {
  if (error instanceof ApiException) {
    const message = statusMessage(error.body) ?? `HTTP ${error.code}`;
    const retryAfter = Number(error.headers?.['retry-after']);
    return new KubernetesRequestError(
      message,
      'http',
      error.code,
      Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : undefined,
      error,
    );
  }
  const e = error as { name?: unknown; type?: unknown; message?: unknown };
  if (e?.name === 'AbortError' || e?.type === 'aborted') {
    return new KubernetesRequestError(
      `no answer within ${requestTimeoutMs} ms`,
      'timeout',
      undefined,
      undefined,
      error,
    );
  }
  const message = typeof e?.message === 'string' ? e.message : String(error);
  if (e?.name === 'FetchError') {
    return new KubernetesRequestError(
      message,
      'network',
      undefined,
      undefined,
      error,
    );
  }
  return new KubernetesRequestError(
    message,
    'client',
    undefined,
    undefined,
    error,
  );
}

/** The `message` of a Kubernetes `Status` body (parsed or still JSON text), else the text. */
function statusMessage(body: unknown): string | undefined {
  let parsed = body;
  if (typeof body === 'string') {
    try {
      parsed = JSON.parse(body);
    } catch {
      return body.trim() || undefined;
    }
  }
  const message = (parsed as { message?: unknown } | undefined)?.message;
  if (typeof message === 'string' && message) {
    return message;
  }
  return typeof body === 'string' ? body.trim() || undefined : undefined;
}

/**
 * The one place that uses `@kubernetes/client-node`: builds a client per cluster and
 * turns the library's errors into {@link KubernetesRequestError}s.
 *
 * Clients are cached per cluster name, so API discovery (`GET /apis/<group>/<version>`,
 * which `KubernetesObjectApi` needs to map a kind to its resource path) happens once
 * per group version and process.
 */
export class KubernetesClientFactory {
  private readonly clients = new Map<string, KubernetesObjectClient>();
  private readonly watchClients = new Map<string, KubernetesWatchClient>();
  private readonly fieldManager: string;
  private readonly requestTimeoutMs: number;

  constructor(options: KubernetesClientFactoryOptions = {}) {
    this.fieldManager = options.fieldManager ?? FIELD_MANAGER;
    this.requestTimeoutMs =
      options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }

  /**
   * The client of a cluster, created on first use. `requestTimeoutMs` overrides the factory's request timeout, e.g.
   * for short status reads; clients are cached per cluster and timeout.
   */
  forCluster(
    name: string,
    connection: ClusterConnection,
    options: { requestTimeoutMs?: number } = {},
  ): KubernetesObjectClient {
    const requestTimeoutMs = options.requestTimeoutMs ?? this.requestTimeoutMs;
    const key = `${name}#${requestTimeoutMs}`;
    let client = this.clients.get(key);
    if (!client) {
      client = new ObjectApiClient(
        makeObjectApi(kubeConfigFor(name, connection), requestTimeoutMs),
        this.fieldManager,
        requestTimeoutMs,
      );
      this.clients.set(key, client);
    }
    return client;
  }

  /** The list and watch client of a cluster (what its informers use), created on first use. */
  watchClientFor(
    name: string,
    connection: ClusterConnection,
  ): KubernetesWatchClient {
    let client = this.watchClients.get(name);
    if (!client) {
      const kc = kubeConfigFor(name, connection);
      const api = makeObjectApi(kc, this.requestTimeoutMs);
      client = new WatchClient(
        new ObjectApiClient(api, this.fieldManager, this.requestTimeoutMs),
        api,
        kc,
        this.requestTimeoutMs,
      );
      this.watchClients.set(name, client);
    }
    return client;
  }
}
