import type { LoggerService } from '@backstage/backend-plugin-api';
import type { KubernetesObject } from '@kubernetes/client-node';
import { createHash } from 'node:crypto';
import { refOf } from './objectRef';
import {
  DeleteOptions,
  ApplyResult,
  ClusterApplier,
  DeleteResult,
  DriftReport,
  ListOptions,
  LiveObjects,
  ObjectRef,
  OwnedKind,
} from './types';

/**
 * How long an apply the informer has not seen yet still counts as the object's live state. Past it (a watch stalled
 * without failing), the object is applied again.
 */
const UNSEEN_APPLY_TRUSTED_MS = 30_000;

/** What this replica last applied of one object, and what the cluster answered. */
interface LastApply {
  /** Hash of the manifest applied. */
  manifest: string;
  /** The answer's `resourceVersion`: the informer has seen the apply once its view reaches it. */
  resourceVersion?: string;
  /** {@link liveSignature} of the answer. */
  signature: string;
  at: number;
}

/**
 * A {@link ClusterApplier} that applies only what differs, as a Kubernetes controller does: an object is not sent
 * again when its manifest is the one this replica last applied successfully and the informers' view of the cluster
 * says the object is still as that apply left it:
 *
 * - the informer has not seen the apply yet (its view is older than the apply's `resourceVersion`, compared as the
 *   integers Kubernetes' comparable resource versions are) and the apply is recent, or
 * - the object as last seen has the same UID, generation and managed fields (status updates aside) as the apply's
 *   answer: nobody deleted, recreated, scaled or edited it since.
 *
 * Anything else is applied: an object of a kind no informer follows, an informer that is not watching (its view may
 * be behind), an object deleted or changed by hand (drift repair stays level-triggered), a manifest that changed, a
 * replica that just started (it remembers nothing). The same object in several services' manifests (the team's
 * LocalQueue) that is being applied already is waited for, not sent twice.
 */
export class DifferenceApplier implements ClusterApplier {
  readonly cluster: string;
  private readonly last = new Map<string, LastApply>();
  private readonly inFlight = new Map<
    string,
    { manifest: string; done: Promise<unknown> }
  >();
  /** Objects sent and not sent, since the start (tests, logs, benchmarks). */
  readonly counts = { applied: 0, unchanged: 0 };

  constructor(
    private readonly options: {
      inner: ClusterApplier;
      live: LiveObjects;
      logger?: LoggerService;
      /** Clock (tests). */
      now?: () => number;
    },
  ) {
    this.cluster = options.inner.cluster;
  }

  async apply(objects: KubernetesObject[]): Promise<ApplyResult[]> {
    const results: ApplyResult[] = [];
    for (const object of objects) {
      results.push(await this.applyOne(object));
    }
    const unchanged = results.filter(r => r.unchanged).length;
    this.options.logger?.info('Applied objects', {
      cluster: this.cluster,
      objects: results.length - unchanged,
      unchanged,
      retries: results.reduce((sum, r) => sum + Math.max(0, r.attempts - 1), 0),
    });
    return results;
  }

  private async applyOne(object: KubernetesObject): Promise<ApplyResult> {
    const ref = refOf(object);
    const key = keyOf(ref);
    const manifest = hashOf(object);
    const flight = this.inFlight.get(key);
    if (flight?.manifest === manifest) {
      await flight.done.catch(() => undefined);
    }
    if (this.unchanged(ref, key, manifest)) {
      this.counts.unchanged += 1;
      return { ref, attempts: 0, unchanged: true };
    }
    const done = this.options.inner.apply([object]);
    this.inFlight.set(key, { manifest, done });
    try {
      const [result] = await done;
      this.counts.applied += 1;
      if (result.applied) {
        this.last.set(key, {
          manifest,
          resourceVersion: result.applied.metadata?.resourceVersion,
          signature: liveSignature(result.applied),
          at: this.now(),
        });
      }
      return result;
    } catch (error) {
      this.last.delete(key);
      throw error;
    } finally {
      if (this.inFlight.get(key)?.done === done) this.inFlight.delete(key);
    }
  }

  private unchanged(ref: ObjectRef, key: string, manifest: string): boolean {
    const last = this.last.get(key);
    if (!last || last.manifest !== manifest) return false;
    const view = this.options.live(ref);
    if (!view) return false;
    if (isOlder(view.resourceVersion, last.resourceVersion)) {
      // The informer has not seen the apply yet: it is the latest known state of the object, for a while.
      return this.now() - last.at < UNSEEN_APPLY_TRUSTED_MS;
    }
    return (
      view.object !== undefined && liveSignature(view.object) === last.signature
    );
  }

  async deleteByOwnership(
    serviceId: string,
    kinds: OwnedKind[],
  ): Promise<DeleteResult[]> {
    const deleted = await this.options.inner.deleteByOwnership(
      serviceId,
      kinds,
    );
    for (const { ref } of deleted) this.last.delete(keyOf(ref));
    return deleted;
  }

  async deleteObjects(
    refs: ObjectRef[],
    options?: DeleteOptions,
  ): Promise<DeleteResult[]> {
    const deleted = await this.options.inner.deleteObjects(refs, options);
    for (const { ref } of deleted) this.last.delete(keyOf(ref));
    return deleted;
  }

  diff(objects: KubernetesObject[]): Promise<DriftReport> {
    return this.options.inner.diff(objects);
  }

  read(ref: ObjectRef): Promise<KubernetesObject | undefined> {
    return this.options.inner.read(ref);
  }

  list(
    options: Omit<ListOptions, 'limit' | 'continueToken'>,
  ): Promise<KubernetesObject[]> {
    return this.options.inner.list(options);
  }

  serves(apiVersion: string, kind: string): Promise<boolean> {
    return this.options.inner.serves(apiVersion, kind);
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }
}

/**
 * What changes when anyone but the status writers touches the object: its UID (deleted and created again), its
 * generation (its spec changed) and its managed fields apart from the status subresource's (who owns which field,
 * without the times: a scale, an edit, a label added by hand).
 */
export function liveSignature(object: KubernetesObject): string {
  const fields = (object.metadata?.managedFields ?? [])
    .filter(entry => entry.subresource !== 'status')
    .map(entry =>
      JSON.stringify([
        entry.manager,
        entry.operation,
        entry.apiVersion,
        entry.subresource ?? '',
        entry.fieldsV1 ?? null,
      ]),
    )
    .sort();
  return JSON.stringify([
    object.metadata?.uid ?? null,
    object.metadata?.generation ?? null,
    fields,
  ]);
}

/**
 * Whether resource version `a` is older than `b`, as Kubernetes' comparable resource versions (integers, etcd's
 * revisions) order them; false when either is not an integer (then nothing can be told from them).
 */
function isOlder(a: string, b: string | undefined): boolean {
  if (!b || !/^\d+$/.test(a) || !/^\d+$/.test(b)) return false;
  return BigInt(a) < BigInt(b);
}

function keyOf(ref: ObjectRef): string {
  return `${ref.apiVersion}/${ref.kind}/${ref.namespace ?? ''}/${ref.name}`;
}

function hashOf(object: KubernetesObject): string {
  return createHash('sha256').update(JSON.stringify(object)).digest('hex');
}
