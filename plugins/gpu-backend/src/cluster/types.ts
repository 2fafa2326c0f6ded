import type { KubernetesObject } from '@kubernetes/client-node';

import type {
  ClusterLabels,
  ClusterMode,
} from '@gpu-platform/backstage-plugin-gpu-common';

export type { ClusterLabels, ClusterMode };

/** Credentials of a cluster taken from `kubernetes.clusterLocatorMethods`. */
export interface ServiceAccountConnection {
  type: 'serviceAccount';
  /** API server URL. */
  url: string;
  serviceAccountToken: string;
  /** Base64 PEM of the cluster CA. */
  caData?: string;
  /** Path of the cluster CA file. */
  caFile?: string;
  skipTLSVerify?: boolean;
}

/** Credentials of a cluster taken from a kubeconfig file. */
export interface KubeconfigConnection {
  type: 'kubeconfig';
  path: string;
  /** Context to use; the file's current context when omitted. */
  context?: string;
}

/** How to reach and authenticate to one cluster. */
export type ClusterConnection = ServiceAccountConnection | KubeconfigConnection;

/** A configured destination of services. */
export interface ClusterTarget {
  /** Cluster name; undefined only for the implicit dry-run target. */
  name?: string;
  mode: ClusterMode;
  /** `gpu.clusters[].labels`: where the cluster is and what it is for; absent when none is set. */
  labels?: ClusterLabels;
  /** Present exactly when `mode` is `apply`. */
  connection?: ClusterConnection;
  /** `gpu.clusters[].multiKueue`: this cluster is a Kueue MultiKueue manager of these worker clusters. */
  multiKueue?: { workers: string[] };
}

/** Identifies one object in a cluster. */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

/** How a delete treats the object's dependents (the objects whose ownerReferences name it). */
export interface DeleteOptions {
  /**
   * Keep them, as `kubectl delete --cascade=orphan`: the API server takes the ownerReference off them instead of the
   * garbage collector deleting them.
   */
  orphanDependents?: boolean;
}

/** A kind to sweep, optionally limited to a namespace. */
export interface OwnedKind {
  apiVersion: string;
  kind: string;
  namespace?: string;
}

/** Options of {@link KubernetesObjectClient.list}. */
export interface ListOptions {
  apiVersion: string;
  kind: string;
  namespace?: string;
  /** e.g. `app=x,tier in (a,b)`. */
  labelSelector?: string;
  /** e.g. `type=Warning` (only the fields the API server supports for the kind). */
  fieldSelector?: string;
  /** Page size; the server answers at most this many items and a continue token. */
  limit?: number;
  continueToken?: string;
  /** Ends the request early, the connection with it (an informer's stop); the call then rejects with its reason. */
  signal?: AbortSignal;
}

/** Options of {@link KubernetesObjectClient.serves}. */
export interface ServesOptions {
  /** Ends API discovery early, as {@link ListOptions.signal} a list. */
  signal?: AbortSignal;
}

/**
 * The few Kubernetes calls the applier and the status reader make. Implemented over
 * `@kubernetes/client-node` by `KubernetesClientFactory`; every failure is a
 * `KubernetesRequestError`.
 */
export interface KubernetesObjectClient {
  /** Server-side apply of the whole object with the configured field manager, forced. */
  apply(object: KubernetesObject): Promise<KubernetesObject>;
  /** The live object as plain JSON. */
  read(ref: ObjectRef): Promise<KubernetesObject>;
  /**
   * One page of objects matching the selectors (all of them when `limit` is omitted). `continueToken` is the
   * `metadata.continue` of the previous page; the last page has none. Items carry no `apiVersion` and `kind`, as in
   * a real list.
   */
  list(options: ListOptions): Promise<{
    items: KubernetesObject[];
    continueToken?: string;
    /** The list's `metadata.resourceVersion`: where a watch of the same objects starts. */
    resourceVersion?: string;
  }>;
  delete(ref: ObjectRef, options?: DeleteOptions): Promise<void>;
  /**
   * Whether the cluster serves the kind under that API version (API discovery): false when its group version or
   * the kind is absent, e.g. a custom resource whose CRD is not installed.
   */
  serves(
    apiVersion: string,
    kind: string,
    options?: ServesOptions,
  ): Promise<boolean>;
}

/** What a watch follows: one kind in every namespace, narrowed by a label or field selector. */
export interface WatchOptions {
  apiVersion: string;
  kind: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Where to start: the `resourceVersion` of a list, or of the last event seen. */
  resourceVersion: string;
  /** The API server ends the watch after this long (a watch is then started again from the last version seen). */
  timeoutSeconds: number;
}

/** One event of a watch, as the API server sent it. */
export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  /** The object; for `ERROR` a `Status` (`code` 410 when the version to start from is too old). */
  object: KubernetesObject & { code?: number; message?: string };
}

/** How a watch ended. */
export type WatchEnd =
  /** The API server closed it (its timeout): start again from the last version seen. */
  | { outcome: 'closed' }
  /** The version to start from is gone from the API server's history (HTTP 410): list again. */
  | { outcome: 'expired' }
  /** It could not start or was cut (refused, reset, an error status, silence past the timeout). */
  | { outcome: 'failed'; error: KubernetesRequestErrorLike };

/** The failure of a watch, as {@link KubernetesObjectClient} reports failures. */
export interface KubernetesRequestErrorLike extends Error {
  statusCode?: number;
  retryable: boolean;
}

/**
 * Lists and watches of one cluster: what an informer needs. Implemented over `@kubernetes/client-node`'s `Watch` by
 * `KubernetesClientFactory`.
 */
export interface KubernetesWatchClient {
  /** One page of a list, with the list's `resourceVersion` (see {@link KubernetesObjectClient.list}). */
  list: KubernetesObjectClient['list'];
  /** Whether the cluster serves a kind (see {@link KubernetesObjectClient.serves}): an add-on's is watched only then. */
  serves: KubernetesObjectClient['serves'];
  /**
   * Watches from `options.resourceVersion`, calling `onEvent` for each event in order; resolves when the watch ends
   * (never rejects). `signal` ends it early (then the outcome is `closed`).
   */
  watch(
    options: WatchOptions,
    onEvent: (event: WatchEvent) => void,
    signal: AbortSignal,
  ): Promise<WatchEnd>;
}

/** Retry policy for one Kubernetes request. */
export interface RetryOptions {
  /** Attempts per request including the first; 5 when omitted. */
  maxAttempts?: number;
  /** Delay before the second attempt, doubled for each further one; 200 ms when omitted. */
  initialDelayMs?: number;
  /** Longest delay, also the cap of a server's `Retry-After`; 5 s when omitted. */
  maxDelayMs?: number;
  /** Waits between attempts (injectable for tests). */
  sleep?: (ms: number) => Promise<void>;
}

/** Outcome of applying one object. */
export interface ApplyResult {
  ref: ObjectRef;
  /** Requests it took, 1 when the first succeeded. */
  attempts: number;
  /** `metadata.resourceVersion` the cluster returned. */
  resourceVersion?: string;
  /** The object as the cluster returned it (absent for an object not applied because it had not changed). */
  applied?: KubernetesObject;
  /** True when the object was not applied: unchanged since its last apply, and so in the cluster. */
  unchanged?: boolean;
}

/**
 * What an informer of a kind knows of one object now (see the reconciler's `OwnedObjectInformer.view`): the object
 * as last seen (undefined when the cluster has none), and the `resourceVersion` the informer has seen everything up
 * to.
 */
export interface LiveObjectView {
  object?: KubernetesObject;
  resourceVersion: string;
}

/**
 * The informers' view of a cluster's objects by reference; undefined when no informer follows the object's kind or
 * the one that does is not watching (its view may be behind).
 */
export type LiveObjects = (ref: ObjectRef) => LiveObjectView | undefined;

/**
 * The informers' view of the objects of a kind in a namespace whose indexed label has a value, as last seen: a
 * service's Deployments, ReplicaSets, pods and claims by its `gpu.backstage.io/service-id`, Kueue's Workloads by
 * `kueue.x-k8s.io/job-uid` (the UID of their pod). Undefined when no informer indexes the kind, or the one that does
 * is not watching.
 */
export type LiveIndexedObjects = (
  kind: { apiVersion: string; kind: string },
  namespace: string,
  value: string,
) => KubernetesObject[] | undefined;

/** Outcome of deleting one owned object. */
export interface DeleteResult {
  ref: ObjectRef;
  outcome: 'deleted' | 'already-gone';
}

/** A managed field whose live value differs from the rendered one. */
export interface FieldDrift {
  /** JSON path, e.g. `spec.template.spec.containers[name=vllm].image`. */
  path: string;
  expected: unknown;
  /** Undefined when the field is gone. */
  actual?: unknown;
}

/** Drift of one rendered object. */
export type ObjectDrift =
  | { ref: ObjectRef; state: 'missing' }
  | { ref: ObjectRef; state: 'changed'; fields: FieldDrift[] };

/** What differs between rendered objects and the cluster. */
export interface DriftReport {
  inSync: boolean;
  /** Only objects that drifted. */
  drifted: ObjectDrift[];
}

/** Applies rendered objects to one cluster and reads them back. */
export interface ClusterApplier {
  readonly cluster: string;
  /**
   * Server-side applies each object in the given order, one request per object,
   * retrying transient failures; throws `KubernetesApplyError` naming the object that
   * failed (objects before it stay applied).
   */
  apply(objects: KubernetesObject[]): Promise<ApplyResult[]>;
  /** Deletes every object of the given kinds labelled as owned by the service. */
  deleteByOwnership(
    serviceId: string,
    kinds: OwnedKind[],
  ): Promise<DeleteResult[]>;
  /**
   * Deletes exactly these objects, in the order given, retrying transient failures; an object already gone is
   * `already-gone`. Throws `KubernetesApplyError` naming the object that failed (objects before it stay deleted).
   */
  deleteObjects(
    refs: ObjectRef[],
    options?: DeleteOptions,
  ): Promise<DeleteResult[]>;
  /** Compares the fields we manage with the cluster. */
  diff(objects: KubernetesObject[]): Promise<DriftReport>;
  /** The live object, or undefined when the cluster has none. */
  read(ref: ObjectRef): Promise<KubernetesObject | undefined>;
  /** Every object matching the selectors (all pages), with `apiVersion` and `kind` set. */
  list(
    options: Omit<ListOptions, 'limit' | 'continueToken'>,
  ): Promise<KubernetesObject[]>;
  /** Whether the cluster serves the kind (see {@link KubernetesObjectClient.serves}). */
  serves(apiVersion: string, kind: string): Promise<boolean>;
}
