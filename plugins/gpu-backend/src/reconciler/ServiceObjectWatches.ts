import type { LoggerService } from '@backstage/backend-plugin-api';
import {
  FIELD_MANAGER,
  OWNERSHIP_LABELS,
} from '@gpu-platform/backstage-plugin-gpu-node';
import type { KubernetesObject } from '@kubernetes/client-node';
import {
  KubernetesWatchClient,
  LiveIndexedObjects,
  LiveObjects,
  subjectOfEvent,
  WARNING_EVENTS,
} from '../cluster';
import {
  byLabel,
  InformedKind,
  OwnedObjectInformer,
} from './OwnedObjectInformer';
import {
  withoutManagedFields,
  withoutStatusManagedFields,
} from './trimmedObjects';

/** Kueue's label on the Workload of a pod (pod integration): the pod's UID. */
const KUEUE_JOB_UID_LABEL = 'kueue.x-k8s.io/job-uid';

/** The product's objects of services: what it applied, and what Kubernetes made from them. */
const SERVICE_OBJECTS = `${OWNERSHIP_LABELS.managedBy}=${FIELD_MANAGER},${OWNERSHIP_LABELS.serviceId}`;

/** Every object the product applied, services' and teams' alike. */
const PRODUCT_OBJECTS = `${OWNERSHIP_LABELS.managedBy}=${FIELD_MANAGER}`;

/**
 * Kinds of a service's objects that a cluster serves only with an add-on installed (or, for the claim template, on a
 * Kubernetes with DRA): their informers wait for API discovery to say the cluster serves them.
 */
const ADD_ON_KINDS = [
  { apiVersion: 'keda.sh/v1alpha1', kind: 'ScaledObject' },
  { apiVersion: 'http.keda.sh/v1alpha1', kind: 'HTTPScaledObject' },
  { apiVersion: 'monitoring.coreos.com/v1', kind: 'PodMonitor' },
  { apiVersion: 'monitoring.coreos.com/v1', kind: 'PrometheusRule' },
  { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaimTemplate' },
];

/**
 * Kinds the product follows but does not apply: made by Kubernetes and Kueue from what it applies. Their informers
 * keep no managed fields; those of the applied kinds keep all but the status subresource's (see `liveSignature`).
 */
const NOT_APPLIED_KINDS = new Set(['Pod', 'ReplicaSet', 'Workload', 'Event']);

/** Informers of one cluster that come back within this long of each other signal its return once. */
const RECONNECT_SIGNAL_INTERVAL_MS = 5_000;

/** One cluster whose service objects are watched. */
export interface WatchedCluster {
  name: string;
  client: KubernetesWatchClient;
}

/** Collaborators and settings of {@link ServiceObjectWatches}. */
export interface ServiceObjectWatchesOptions {
  clusters: WatchedCluster[];
  /** API version of Kueue's Workloads (`gpu.kueue.apiVersion`). */
  kueueApiVersion: string;
  /** Called with the id of the service an event was about (the work queue's `add`). */
  enqueue: (serviceId: string) => void;
  /**
   * Called when a cluster is reachable again after its watches failed (a list succeeded after failures): what waits
   * on it (applies and teardowns in backoff, statuses not read) can go on now rather than at its next retry.
   */
  onReconnected?: (cluster: string) => void;
  logger: LoggerService;
  /** Passed on to each informer (tests). */
  informer?: Pick<
    ConstructorParameters<typeof OwnedObjectInformer>[0],
    'backoffMs' | 'watchTimeoutSeconds' | 'unservedRecheckMs'
  >;
}

/**
 * The watches that feed the reconciler's work queue, per cluster services are applied to: informers on the Deployments,
 * ReplicaSets and Pods the product owns (its ownership labels; ReplicaSets and pods carry them from the template), on
 * Kueue's Workloads of pods and on the Warning events (for the status reads); and on the Services, claims,
 * HorizontalPodAutoscalers, PodDisruptionBudgets and LocalQueues it applies, and on the add-ons' kinds it applies
 * (KEDA's ScaledObjects and HTTPScaledObjects, the Prometheus operator's PodMonitors and PrometheusRules, DRA's
 * ResourceClaimTemplates) once API discovery says the cluster serves them. An event enqueues the service it is about:
 * the `gpu.backstage.io/service-id` label of a Deployment, Pod, Service or claim, of an autoscaler, disruption budget
 * or add-on's object added or deleted, and for a Workload the service of the pod that owns it (a LocalQueue is a
 * team's, a ReplicaSet and a Warning event are followed for the status reads: none). So a Deployment deleted or scaled
 * by hand, a Service, claim, autoscaler, budget or add-on's object deleted, a pod that fails or becomes ready, or a
 * Workload admitted, reaches the service in a second rather than at the next resync, which still runs for what a watch
 * cannot tell (an add-on's kind the cluster did not serve when last asked, or objects edited by hand).
 */
export class ServiceObjectWatches {
  private readonly informers: OwnedObjectInformer[] = [];
  /** Per cluster, the informer of each kind the product applies and follows, by `apiVersion/kind`. */
  private readonly appliedKinds = new Map<
    string,
    Map<string, OwnedObjectInformer>
  >();
  /** Per cluster, the informers that index their objects by a label (see `indexedObjects`), by `apiVersion/kind`. */
  private readonly indexedKinds = new Map<
    string,
    Map<string, OwnedObjectInformer>
  >();
  /** Pod UID to service id, per cluster: which service a Workload is about. */
  private readonly podServices = new Map<string, Map<string, string>>();
  private readonly lastReconnect = new Map<string, number>();

  constructor(private readonly options: ServiceObjectWatchesOptions) {
    for (const cluster of options.clusters) {
      const pods = new Map<string, string>();
      this.podServices.set(cluster.name, pods);
      const byService = byLabel(OWNERSHIP_LABELS.serviceId);
      const kinds: Array<{
        kind: InformedKind;
        /** What the informer indexes its objects by, for the status reads (`indexedObjects`). */
        indexBy?: (object: KubernetesObject) => string | undefined;
        serviceOf: (
          object: KubernetesObject,
          type: string,
        ) => string | undefined;
      }> = [
        {
          kind: {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            labelSelector: SERVICE_OBJECTS,
          },
          indexBy: byService,
          serviceOf: serviceIdOf,
        },
        // A service's ReplicaSets: followed only for its status reads (its Deployment's events tell of a rollout).
        {
          kind: {
            apiVersion: 'apps/v1',
            kind: 'ReplicaSet',
            labelSelector: SERVICE_OBJECTS,
          },
          indexBy: byService,
          serviceOf: () => undefined,
        },
        {
          kind: {
            apiVersion: 'v1',
            kind: 'Pod',
            labelSelector: SERVICE_OBJECTS,
          },
          indexBy: byService,
          serviceOf: (pod, type) => {
            const id = serviceIdOf(pod);
            const uid = pod.metadata?.uid;
            if (uid && id) {
              if (type === 'deleted') pods.delete(uid);
              else pods.set(uid, id);
            }
            return id;
          },
        },
        {
          kind: {
            apiVersion: options.kueueApiVersion,
            kind: 'Workload',
            labelSelector: KUEUE_JOB_UID_LABEL,
          },
          indexBy: byLabel(KUEUE_JOB_UID_LABEL),
          serviceOf: workload =>
            (workload.metadata?.ownerReferences ?? [])
              .filter(owner => owner.kind === 'Pod')
              .map(owner => pods.get(owner.uid))
              .find(id => id !== undefined),
        },
        // A service's Service or claim deleted reaches the service, whose status read finds it missing and applies it
        // again; its coming back (or a claim bound) then reads the status again. Changed by hand, one is applied again
        // at the service's next apply.
        {
          kind: {
            apiVersion: 'v1',
            kind: 'Service',
            labelSelector: SERVICE_OBJECTS,
          },
          serviceOf: serviceIdOf,
        },
        {
          kind: {
            apiVersion: 'v1',
            kind: 'PersistentVolumeClaim',
            labelSelector: SERVICE_OBJECTS,
          },
          indexBy: byService,
          serviceOf: serviceIdOf,
        },
        // A service's autoscaler or disruption budget added or deleted (not changed: their controllers write their
        // status every few seconds while pods come and go), and so for the kinds of add-ons, followed once the
        // cluster serves them (KEDA's and its HTTP add-on's autoscalers, the Prometheus operator's monitor and rule,
        // a DRA pool's claim template).
        ...[
          { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' },
          { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget' },
          ...ADD_ON_KINDS.map(kind => ({ ...kind, addOn: true })),
        ].map(kind => ({
          kind: { ...kind, labelSelector: SERVICE_OBJECTS },
          serviceOf: (object: KubernetesObject, type: string) =>
            type === 'changed' ? undefined : serviceIdOf(object),
        })),
        // Warning events, in every namespace (they carry no ownership label), by the object they are about: followed
        // only for the status reads (a pod's own events tell of what they warn about).
        {
          kind: WARNING_EVENTS,
          indexBy: subjectOfEvent,
          serviceOf: () => undefined,
        },
        // Teams' queues: followed only to know what is live (see liveObjects).
        {
          kind: {
            apiVersion: options.kueueApiVersion,
            kind: 'LocalQueue',
            labelSelector: PRODUCT_OBJECTS,
          },
          serviceOf: () => undefined,
        },
      ];
      const applied = new Map<string, OwnedObjectInformer>();
      this.appliedKinds.set(cluster.name, applied);
      const indexed = new Map<string, OwnedObjectInformer>();
      this.indexedKinds.set(cluster.name, indexed);
      for (const { kind, indexBy, serviceOf } of kinds) {
        const informer = new OwnedObjectInformer({
          cluster: cluster.name,
          client: cluster.client,
          kind,
          transform: NOT_APPLIED_KINDS.has(kind.kind)
            ? withoutManagedFields
            : withoutStatusManagedFields,
          ...(indexBy && { indexBy }),
          logger: options.logger,
          ...options.informer,
          onReconnected: () => this.reconnected(cluster.name),
          onChange: (object, type) => {
            const id = serviceOf(object, type);
            if (id) options.enqueue(id);
          },
        });
        this.informers.push(informer);
        if (indexBy) indexed.set(`${kind.apiVersion}/${kind.kind}`, informer);
        if (!NOT_APPLIED_KINDS.has(kind.kind)) {
          applied.set(`${kind.apiVersion}/${kind.kind}`, informer);
        }
      }
    }
  }

  /**
   * What the informers of a cluster know of the objects the product applies (Deployments, Services,
   * PersistentVolumeClaims, HorizontalPodAutoscalers, PodDisruptionBudgets, LocalQueues, and the add-ons' kinds the
   * cluster serves), for the cluster's `DifferenceApplier` and status reader: undefined for other kinds, and while an
   * informer is not watching.
   */
  liveObjects(cluster: string): LiveObjects {
    const informers = this.appliedKinds.get(cluster);
    return ref =>
      informers
        ?.get(`${ref.apiVersion}/${ref.kind}`)
        ?.view(ref.namespace, ref.name);
  }

  /**
   * What the informers of a cluster know of the objects a status read lists: a service's Deployments, ReplicaSets,
   * pods and PersistentVolumeClaims by its id, Kueue's Workloads by their pod's UID, Warning events by the object they
   * are about (`eventSubjectKey`); the status reader then lists none of them. Undefined for other kinds, and while an
   * informer is not watching.
   */
  indexedObjects(cluster: string): LiveIndexedObjects {
    const informers = this.indexedKinds.get(cluster);
    return (kind, namespace, value) =>
      informers
        ?.get(`${kind.apiVersion}/${kind.kind}`)
        ?.indexed(namespace, value);
  }

  /** One signal per cluster coming back, though each of its informers sees it. */
  private reconnected(cluster: string): void {
    const last = this.lastReconnect.get(cluster) ?? 0;
    if (Date.now() - last < RECONNECT_SIGNAL_INTERVAL_MS) return;
    this.lastReconnect.set(cluster, Date.now());
    this.options.logger.info(`Cluster '${cluster}' is reachable again`);
    this.options.onReconnected?.(cluster);
  }

  /** Starts every informer; returns at once (they list and watch in the background). */
  start(): void {
    for (const informer of this.informers) informer.start();
    this.options.logger.info('Watching the GPU services’ objects', {
      clusters: this.options.clusters.map(c => c.name).join(', '),
    });
  }

  /** Stops every informer and waits for them (plugin shutdown). */
  async stop(): Promise<void> {
    await Promise.all(this.informers.map(informer => informer.stop()));
  }

  /** Resolves once every informer has read its first list (tests). */
  async hasSynced(): Promise<void> {
    await Promise.all(this.informers.map(informer => informer.hasSynced()));
  }

  /** Lists, watches, events and failures of every informer, summed (tests, logs). */
  counts(): OwnedObjectInformer['counts'] {
    const sum = { lists: 0, watches: 0, events: 0, failures: 0 };
    for (const { counts } of this.informers) {
      sum.lists += counts.lists;
      sum.watches += counts.watches;
      sum.events += counts.events;
      sum.failures += counts.failures;
    }
    return sum;
  }
}

function serviceIdOf(object: KubernetesObject): string | undefined {
  return object.metadata?.labels?.[OWNERSHIP_LABELS.serviceId];
}
