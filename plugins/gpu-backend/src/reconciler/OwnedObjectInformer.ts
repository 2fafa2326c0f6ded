import type { LoggerService } from '@backstage/backend-plugin-api';
import { setTimeout as pause } from 'node:timers/promises';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { KubernetesWatchClient, WatchEnd, WatchEvent } from '../cluster';

/** Items per page of an informer's list. */
const LIST_PAGE_SIZE = 500;

/** First pause before a cut watch or a failed list is tried again; doubled per failure in a row. */
const INITIAL_BACKOFF_MS = 500;

/** Longest pause between two attempts: a cluster that comes back is seen within this long. */
const MAX_BACKOFF_MS = 10_000;

/** The API server ends a watch after a random 4 to 6 minutes (spread, so the watches of a replica do not align). */
const WATCH_TIMEOUT_SECONDS = { min: 240, max: 360 };

/** How often discovery is asked again whether the cluster serves an add-on's kind it did not serve. */
const UNSERVED_RECHECK_MS = 60_000;

/** One kind an informer follows. */
export interface InformedKind {
  apiVersion: string;
  kind: string;
  /** Only the objects with these labels (the product's ownership labels). */
  labelSelector?: string;
  /** Only the objects whose fields match (e.g. `type=Warning` of events). */
  fieldSelector?: string;
  /**
   * A kind of an add-on the cluster may not serve (its CRD not installed: KEDA, the Prometheus operator): API
   * discovery is asked before each list, and while the cluster does not serve it the informer waits and asks again
   * instead of failing its lists.
   */
  addOn?: boolean;
}

/** Collaborators and settings of {@link OwnedObjectInformer}. */
export interface OwnedObjectInformerOptions {
  cluster: string;
  client: KubernetesWatchClient;
  kind: InformedKind;
  /** Called when a list succeeds after failures in a row: the cluster is reachable again. */
  onReconnected?: () => void;
  /** Called with every object that was added, changed or deleted, as last seen (several times for one change is fine). */
  onChange: (
    object: KubernetesObject,
    type: 'added' | 'changed' | 'deleted',
  ) => void;
  logger: LoggerService;
  /** Pauses between attempts (tests); exponential from 0.5 s to 10 s when omitted. */
  backoffMs?: (failures: number) => number;
  /** Pause before discovery is asked again about an add-on's kind the cluster does not serve (tests); 1 minute. */
  unservedRecheckMs?: number;
  /**
   * What the informer keeps of each object it lists or hears of, and hands to `onChange` (client-go's transform
   * function: e.g. without the managed fields nothing reads); the object as sent when omitted.
   */
  transform?: (object: KubernetesObject) => KubernetesObject;
  /**
   * The value the objects are indexed by, for {@link OwnedObjectInformer.indexed} (e.g. a label's, see
   * {@link byLabel}); undefined leaves an object out of the index.
   */
  indexBy?: (object: KubernetesObject) => string | undefined;
  /** Server-side watch timeout in seconds (tests); 4 to 6 minutes when omitted. */
  watchTimeoutSeconds?: () => number;
}

/** What the informer knows of one object: enough to tell, on a new list, what changed or disappeared meanwhile. */
interface Known {
  object: KubernetesObject;
  resourceVersion?: string;
}

/**
 * Follows one kind on one cluster the way a Kubernetes informer's reflector does: lists it (paged), then watches from
 * the list's `resourceVersion`, and calls `onChange` for each object added, changed or deleted. A watch the API server
 * closes is started again from the last version seen (bookmarks keep it fresh), so nothing between two watches is
 * missed; a watch whose version is gone (410 Gone, as an error status or an `ERROR` event) lists again and reports
 * what differs from what it knew, deletions included. A failed list or a cut watch (refused, reset, silent) is tried
 * again with exponential backoff until {@link OwnedObjectInformer.stop}, starting over with a list, whose answer says
 * the cluster is back (`onReconnected`) and reports what changed while it was away. The first list reports nothing:
 * what exists at start is the periodic resync's. An add-on's kind (`addOn`) is listed only once API discovery says
 * the cluster serves it: until then the informer knows nothing (no view) and asks again every minute, quietly.
 */
export class OwnedObjectInformer {
  private readonly known = new Map<string, Known>();
  /** The keys of the known objects by their `indexBy` value. */
  private readonly index = new Map<string, Set<string>>();
  private resourceVersion?: string;
  private listed = false;
  private failures = 0;
  private running?: Promise<void>;
  private abort = new AbortController();
  private synced?: () => void;
  private readonly firstSync: Promise<void>;
  /** Whether the cluster did not serve the add-on's kind when last asked (logged once per change). */
  private unserved = false;
  /** Lists and watches started, for tests and logs. */
  readonly counts = { lists: 0, watches: 0, events: 0, failures: 0 };

  constructor(private readonly options: OwnedObjectInformerOptions) {
    this.firstSync = new Promise(resolve => {
      this.synced = resolve;
    });
  }

  /** Starts listing and watching in the background; returns at once. */
  start(): void {
    if (this.running) return;
    this.abort = new AbortController();
    this.running = this.run(this.abort.signal);
  }

  /** Ends the watch in flight and any wait; resolves once the informer has stopped. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.running;
    this.running = undefined;
  }

  /**
   * Resolves once the first list has been read, or for an add-on's kind once discovery said the cluster does not serve
   * it (tests).
   */
  hasSynced(): Promise<void> {
    return this.firstSync;
  }

  /** The objects as last seen. */
  objects(): KubernetesObject[] {
    return [...this.known.values()].map(k => k.object);
  }

  /**
   * What the informer knows of the cluster now: the object as last seen (undefined when it does not exist), and the
   * `resourceVersion` the informer's view is complete up to (its list's, then the last event's or bookmark's).
   * Undefined while the informer is not watching (not listed yet, or its watch failed and it has not listed again):
   * its view may then be behind by any amount.
   */
  view(
    namespace: string | undefined,
    name: string,
  ): { object?: KubernetesObject; resourceVersion: string } | undefined {
    const resourceVersion = this.watching ? this.resourceVersion : undefined;
    if (!resourceVersion) return undefined;
    return {
      object: this.known.get(`${namespace ?? ''}/${name}`)?.object,
      resourceVersion,
    };
  }

  /**
   * The objects in `namespace` whose `indexBy` value is `value`, as last seen; undefined while the informer is not
   * watching (see {@link OwnedObjectInformer.view}) or indexes nothing.
   */
  indexed(namespace: string, value: string): KubernetesObject[] | undefined {
    if (!this.options.indexBy || !this.watching) return undefined;
    const objects: KubernetesObject[] = [];
    for (const key of this.index.get(value) ?? []) {
      const object = this.known.get(key)?.object;
      if (object?.metadata?.namespace === namespace) objects.push(object);
    }
    return objects;
  }

  /** Whether the informer's view is complete up to its `resourceVersion`: listed, and its watch not failed since. */
  private get watching(): boolean {
    return this.listed && this.failures === 0 && Boolean(this.resourceVersion);
  }

  private get unservedRecheckMs(): number {
    return this.options.unservedRecheckMs ?? UNSERVED_RECHECK_MS;
  }

  /** Records an object as last seen, and indexes it. */
  private remember(key: string, known: Known): void {
    this.forget(key);
    this.known.set(key, known);
    const value = this.indexValue(known.object);
    if (value === undefined) return;
    let keys = this.index.get(value);
    if (!keys) {
      keys = new Set();
      this.index.set(value, keys);
    }
    keys.add(key);
  }

  /** Forgets an object, and takes it out of the index. */
  private forget(key: string): void {
    const before = this.known.get(key);
    if (!before) return;
    this.known.delete(key);
    const value = this.indexValue(before.object);
    const keys = value === undefined ? undefined : this.index.get(value);
    keys?.delete(key);
    if (keys?.size === 0) this.index.delete(value!);
  }

  private forgetAll(): void {
    this.known.clear();
    this.index.clear();
  }

  private indexValue(object: KubernetesObject): string | undefined {
    return this.options.indexBy?.(object);
  }

  private get what(): string {
    const { kind, apiVersion } = this.options.kind;
    return `${kind} (${apiVersion}) on cluster '${this.options.cluster}'`;
  }

  private async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        if (this.resourceVersion === undefined) {
          if (!(await this.served(signal))) {
            await sleep(this.unservedRecheckMs, signal);
            continue;
          }
          await this.list(signal);
        }
        if (signal.aborted) return;
        const started = Date.now();
        const heard = this.counts.events;
        const end = await this.watch(signal);
        if (end.outcome === 'expired') this.resourceVersion = undefined;
        if (end.outcome === 'failed') throw end.error;
        if (
          end.outcome === 'closed' &&
          !signal.aborted &&
          heard === this.counts.events &&
          Date.now() - started < 1_000
        ) {
          // Closed at once with nothing said: an API server going away; do not spin.
          throw new Error('the watch ended as soon as it started');
        }
      } catch (error) {
        if (signal.aborted) return;
        // Start over with a list: its answer says the cluster is back, and it reports what changed meanwhile.
        this.resourceVersion = undefined;
        this.failures += 1;
        this.counts.failures += 1;
        const delay = this.backoff();
        const log =
          this.failures === 1
            ? this.options.logger.warn
            : this.options.logger.debug;
        log.call(
          this.options.logger,
          `Watching ${this.what} failed; trying again in ${delay} ms`,
          { error: String(error), failures: this.failures },
        );
        await sleep(delay, signal);
      }
    }
  }

  /**
   * Whether to list: always for a built-in kind; for an add-on's, whether discovery says the cluster serves it. Not
   * served, what the informer knew is forgotten (nothing reported: the CRD's removal deleted the objects, and each
   * status read finds them missing) and the first sync is over: there is nothing to list.
   */
  private async served(signal: AbortSignal): Promise<boolean> {
    const { addOn, apiVersion, kind } = this.options.kind;
    if (!addOn) return true;
    const served = await unlessAborted(
      this.options.client.serves(apiVersion, kind, { signal }),
      signal,
    );
    if (served === !this.unserved) return served;
    this.unserved = !served;
    if (served) {
      this.options.logger.info(
        `Cluster '${this.options.cluster}' now serves ${kind} (${apiVersion}): watching it`,
      );
    } else {
      this.options.logger.info(
        `Cluster '${
          this.options.cluster
        }' does not serve ${kind} (${apiVersion}): not watched; asking again every ${Math.round(
          this.unservedRecheckMs / 1000,
        )} s`,
      );
      this.forgetAll();
      this.listed = false;
      this.failures = 0;
      this.synced?.();
    }
    return served;
  }

  /** Lists every page; reports what changed or disappeared since the objects known (none the first time). */
  private async list(signal: AbortSignal): Promise<void> {
    this.counts.lists += 1;
    const { apiVersion, kind, labelSelector, fieldSelector } =
      this.options.kind;
    const items: KubernetesObject[] = [];
    let continueToken: string | undefined;
    let resourceVersion: string | undefined;
    do {
      const page = await unlessAborted(
        this.options.client.list({
          apiVersion,
          kind,
          labelSelector,
          fieldSelector,
          limit: LIST_PAGE_SIZE,
          continueToken,
          signal,
        }),
        signal,
      );
      if (signal.aborted) return;
      resourceVersion ??= page.resourceVersion;
      items.push(...page.items.map(item => this.transform(item)));
      continueToken = page.continueToken;
    } while (continueToken);
    const report = this.listed;
    const previous = new Map(this.known);
    this.forgetAll();
    for (const object of items) {
      const key = keyOf(object);
      const before = previous.get(key);
      previous.delete(key);
      const version = object.metadata?.resourceVersion;
      this.remember(key, { object, resourceVersion: version });
      if (report && before?.resourceVersion !== version) {
        this.options.onChange(object, before ? 'changed' : 'added');
      }
    }
    if (report) {
      for (const gone of previous.values()) {
        this.options.onChange(gone.object, 'deleted');
      }
    }
    this.resourceVersion = resourceVersion ?? '';
    this.listed = true;
    const reconnected = this.failures > 0;
    this.failures = 0;
    this.synced?.();
    if (reconnected) this.options.onReconnected?.();
  }

  private async watch(signal: AbortSignal): Promise<WatchEnd> {
    this.counts.watches += 1;
    const { apiVersion, kind, labelSelector, fieldSelector } =
      this.options.kind;
    let expired = false;
    const end = await this.options.client.watch(
      {
        apiVersion,
        kind,
        labelSelector,
        fieldSelector,
        resourceVersion: this.resourceVersion ?? '',
        timeoutSeconds: this.watchTimeoutSeconds(),
      },
      event => {
        if (!this.handle(event)) expired = true;
      },
      signal,
    );
    return expired && end.outcome !== 'failed' ? { outcome: 'expired' } : end;
  }

  /** Applies one event; false when it says the version watched from is gone (the watch then lists again). */
  private handle(event: WatchEvent): boolean {
    const { type } = event;
    if (!event.object || typeof event.object !== 'object') return true;
    this.counts.events += 1;
    if (type === 'ERROR') {
      const { code, message } = event.object;
      if (code === 410) return false;
      this.options.logger.warn(`The watch of ${this.what} sent an error`, {
        code,
        message,
      });
      return true;
    }
    const version = event.object.metadata?.resourceVersion;
    if (version) this.resourceVersion = version;
    if (type === 'BOOKMARK') return true;
    const object = this.transform(event.object);
    const key = keyOf(object);
    if (type === 'DELETED') {
      this.forget(key);
      this.options.onChange(object, 'deleted');
      return true;
    }
    const before = this.known.get(key);
    this.remember(key, { object, resourceVersion: version });
    this.options.onChange(object, before ? 'changed' : 'added');
    return true;
  }

  private transform(object: KubernetesObject): KubernetesObject {
    return this.options.transform ? this.options.transform(object) : object;
  }

  private backoff(): number {
    if (this.options.backoffMs) return this.options.backoffMs(this.failures);
    const exponential = INITIAL_BACKOFF_MS * 2 ** (this.failures - 1);
    // Jitter, so the watches of many replicas do not come back at the same instant.
    return Math.round(
      Math.min(MAX_BACKOFF_MS, exponential) * (0.8 + Math.random() * 0.4),
    );
  }

  private watchTimeoutSeconds(): number {
    if (this.options.watchTimeoutSeconds)
      return this.options.watchTimeoutSeconds();
    const { min, max } = WATCH_TIMEOUT_SECONDS;
    return Math.round(min + Math.random() * (max - min));
  }
}

/** An informer's index by the value of one label (`indexBy`). */
export function byLabel(
  label: string,
): (object: KubernetesObject) => string | undefined {
  return object => object.metadata?.labels?.[label];
}

function keyOf(object: KubernetesObject): string {
  return `${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`;
}

/**
 * `request`'s answer, or a rejection as soon as `signal` aborts: {@link OwnedObjectInformer.stop} does not wait for a
 * list or discovery request in flight (one to an address that does not resolve can take the resolver's 5 s timeout).
 * The request is given the signal too, and the factory's client aborts it; from a client that does not, the late
 * answer is dropped.
 */
function unlessAborted<T>(
  request: Promise<T>,
  signal: AbortSignal,
): Promise<T> {
  if (signal.aborted) {
    request.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    request.then(
      value => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      error => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Waits `ms`, or less when `signal` aborts; the wait keeps no process alive. */
async function sleep(ms: number, signal: AbortSignal): Promise<void> {
  await pause(ms, undefined, { signal, ref: false }).catch(() => undefined);
}
