import type { KubernetesObject } from '@kubernetes/client-node';
import type {
  ClusterMissingObject,
  ClusterPodDevice,
  ServiceClusterStatus,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  FIELD_MANAGER,
  OWNERSHIP_LABELS,
} from '@gpu-platform/backstage-plugin-gpu-node';
import { KubernetesApplyError, KubernetesRequestError } from './errors';
import {
  KUEUE_JOB_UID_LABEL,
  summariseAdmission,
  summariseDeployment,
  summarisePod,
  summariseWarnings,
  summariseWorkload,
} from './summariseClusterStatus';
import {
  KubernetesObjectClient,
  ListOptions,
  LiveIndexedObjects,
  LiveObjects,
  ObjectRef,
} from './types';
import { eventSubjectKey, WARNING_EVENTS } from './warningEvents';

/** The objects of one service to read. */
export interface ServiceObjects {
  serviceId: string;
  namespace: string;
  /** Name of the service's Deployment. */
  deployment: string;
  /** The other objects of its stored manifests, each read to tell whether the cluster has it (`missing`). */
  others?: ObjectRef[];
}

/** Options of {@link ClusterStatusReader}. */
export interface ClusterStatusReaderOptions {
  /** Cluster name, for the answer and messages. */
  cluster: string;
  client: KubernetesObjectClient;
  /** API version of Kueue's Workloads (`gpu.kueue.apiVersion`, e.g. `kueue.x-k8s.io/v1beta2`). */
  kueueApiVersion: string;
  /**
   * The cluster's informers (the reconciler's watches): an object of `others` they show as present is not read again.
   * Without them, or for a kind they do not follow, each is read.
   */
  live?: LiveObjects;
  /**
   * The informers' view of a service's Deployment, ReplicaSets, pods and claims, of its pods' Workloads and of the
   * Warning events about them ({@link WARNING_EVENTS}): where they are watching, those are taken from them instead of
   * being read or listed (a Deployment they show as absent is read to confirm).
   */
  indexed?: LiveIndexedObjects;
  /** Items per list request (paged with `continue`); 250 when omitted. */
  pageSize?: number;
  /** Warnings kept, newest first; 20 when omitted. */
  maxWarnings?: number;
  now?: () => Date;
}

/** Pages of one list at most; a namespace with more matching objects is cut there. */
const MAX_PAGES = 40;
/** Pod UIDs per Workload list (set-based label selector). */
const UIDS_PER_WORKLOAD_LIST = 25;

/**
 * Reads what the cluster says about one service in apply mode, by the service's ownership labels
 * (`gpu.backstage.io/service-id` and `app.kubernetes.io/managed-by`):
 *
 * - its Deployment (`GET`, absent is reported, not thrown), or as the informers show it (`indexed`);
 * - the other objects of its stored manifests when given (its Service, autoscaler objects, ...), those absent
 *   reported as `missing`, so drift of any kind it renders is seen, not only of its Deployment: a `GET` each, but for
 *   those the informers (`live`) show as present;
 * - its pods, ReplicaSets and model cache claims (lists by the ownership labels, which the pod template carries);
 * - the Kueue Workloads of its pods: Kueue's pod integration (used for Deployments) makes one Workload per pod,
 *   labelled `kueue.x-k8s.io/job-uid=<pod uid>` and owned by the pod; listed by that label and kept only when a pod
 *   of the service owns them;
 * - all of these as the informers show them instead, while they are watching (`indexed`);
 * - the namespace's Warning events (`fieldSelector=type=Warning`), kept when they are about the Deployment, one of
 *   its ReplicaSets or pods, or its PersistentVolumeClaim (a claim that cannot bind keeps the pod pending); while the
 *   informers watch, those about each of these objects are taken from them and none is listed.
 *
 * Lists are paged (`limit` and `continue`). One request per call, no retries: the caller bounds the whole read with
 * a timeout and reports a failure instead of waiting. Any failed request fails the read with a
 * `KubernetesApplyError` naming what could not be read.
 */
export class ClusterStatusReader {
  readonly cluster: string;
  private readonly client: KubernetesObjectClient;
  private readonly kueueApiVersion: string;
  private readonly live?: LiveObjects;
  private readonly indexed?: LiveIndexedObjects;
  private readonly pageSize: number;
  private readonly maxWarnings: number;
  private readonly now: () => Date;

  constructor(options: ClusterStatusReaderOptions) {
    this.cluster = options.cluster;
    this.client = options.client;
    this.kueueApiVersion = options.kueueApiVersion;
    this.live = options.live;
    this.indexed = options.indexed;
    this.pageSize = options.pageSize ?? 250;
    this.maxWarnings = options.maxWarnings ?? 20;
    this.now = options.now ?? (() => new Date());
  }

  async read(objects: ServiceObjects): Promise<ServiceClusterStatus> {
    const observedAt = this.now().toISOString();
    const { namespace } = objects;
    const labelSelector = `${OWNERSHIP_LABELS.serviceId}=${objects.serviceId},${OWNERSHIP_LABELS.managedBy}=${FIELD_MANAGER}`;
    const ofService = (options: ListOptions) =>
      this.indexed?.(options, namespace, objects.serviceId) ??
      this.listAll(options);
    // Listed alongside the other reads unless the informers follow the events (asked about the Deployment's).
    const listedEvents = this.indexed?.(
      WARNING_EVENTS,
      namespace,
      eventSubjectKey({ kind: 'Deployment', name: objects.deployment }),
    )
      ? undefined
      : this.listAll({ ...WARNING_EVENTS, namespace });
    const [deployment, missing, pods, replicaSets, claims, listed] =
      await Promise.all([
        this.deploymentOf(objects),
        this.missingOf(objects.others ?? []),
        ofService({
          apiVersion: 'v1',
          kind: 'Pod',
          namespace,
          labelSelector,
        }),
        ofService({
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          namespace,
          labelSelector,
        }),
        ofService({
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          namespace,
          labelSelector,
        }),
        listedEvents,
      ]);
    const podNames = new Map(
      pods
        .filter(p => p.metadata?.uid)
        .map(p => [p.metadata!.uid!, p.metadata!.name!]),
    );
    const workloads = await this.workloadsOf(namespace, podNames);
    const devices = await this.allocatedDevices(namespace, pods);
    const podViews = pods
      .map(summarisePod)
      .map(pod =>
        devices.has(pod.name)
          ? { ...pod, devices: devices.get(pod.name)! }
          : pod,
      )
      .sort((a, b) => a.name.localeCompare(b.name));
    const involved = [
      ...(deployment
        ? [
            {
              kind: 'Deployment',
              name: objects.deployment,
              uid: deployment.metadata?.uid,
            },
          ]
        : [{ kind: 'Deployment', name: objects.deployment }]),
      ...replicaSets.map(r => ({
        kind: 'ReplicaSet',
        name: r.metadata?.name ?? '',
        uid: r.metadata?.uid,
      })),
      ...pods.map(p => ({
        kind: 'Pod',
        name: p.metadata?.name ?? '',
        uid: p.metadata?.uid,
      })),
      ...claims.map(c => ({
        kind: 'PersistentVolumeClaim',
        name: c.metadata?.name ?? '',
        uid: c.metadata?.uid,
      })),
    ];
    const events =
      listed ?? (await this.warningEventsAbout(namespace, involved));
    return {
      cluster: this.cluster,
      observedAt,
      deployment: summariseDeployment(
        { namespace, name: objects.deployment },
        deployment,
      ),
      admission: summariseAdmission(
        workloads.map(w => summariseWorkload(w, podNames)),
        podViews,
      ),
      pods: podViews,
      warnings: summariseWarnings(events, involved, this.maxWarnings),
      ...(missing.length > 0 && { missing }),
    };
  }

  /**
   * The service's Deployment as the informers show it (this service's, by its ownership label), else read: when they
   * are not watching, or show none (their watch may lag the apply that created it).
   */
  private async deploymentOf(
    objects: ServiceObjects,
  ): Promise<KubernetesObject | undefined> {
    const ref = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      namespace: objects.namespace,
      name: objects.deployment,
    };
    const seen = this.indexed?.(ref, objects.namespace, objects.serviceId);
    return (
      seen?.find(d => d.metadata?.name === objects.deployment) ??
      (await this.readOptional(ref))
    );
  }

  /**
   * The objects the cluster does not have, read at once, but for those a watching informer shows as present (one it
   * shows as absent is read to confirm: its watch may lag an apply). An object of a kind the cluster no longer serves
   * (its CRD removed) is missing too, rather than failing the whole read: its repair's apply then says what is wrong.
   */
  private async missingOf(refs: ObjectRef[]): Promise<ClusterMissingObject[]> {
    const found = await Promise.all(
      refs.map(async ref => {
        if (this.live?.(ref)?.object) return true;
        try {
          return (await this.readOptional(ref)) !== undefined;
        } catch (error) {
          if (!(await this.client.serves(ref.apiVersion, ref.kind))) {
            return false;
          }
          throw error;
        }
      }),
    );
    return refs.filter((_, i) => !found[i]);
  }

  /**
   * The devices allocated to each pod's ResourceClaims (pod name to devices): one read per claim of a pod on a DRA
   * pool (`status.resourceClaimStatuses`), none for pods without claims. A claim gone or not allocated yet gives none.
   */
  private async allocatedDevices(
    namespace: string,
    pods: KubernetesObject[],
  ): Promise<Map<string, ClusterPodDevice[]>> {
    const result = new Map<string, ClusterPodDevice[]>();
    for (const pod of pods as Array<
      KubernetesObject & {
        status?: {
          resourceClaimStatuses?: Array<{ resourceClaimName?: string }>;
        };
      }
    >) {
      const names = (pod.status?.resourceClaimStatuses ?? [])
        .map(s => s.resourceClaimName)
        .filter((n): n is string => typeof n === 'string');
      const found: ClusterPodDevice[] = [];
      for (const name of names) {
        const claim = (await this.readOptional({
          apiVersion: 'resource.k8s.io/v1',
          kind: 'ResourceClaim',
          namespace,
          name,
        })) as
          | {
              status?: {
                allocation?: {
                  devices?: {
                    results?: Array<{
                      device?: string;
                      driver?: string;
                      pool?: string;
                    }>;
                  };
                };
              };
            }
          | undefined;
        for (const r of claim?.status?.allocation?.devices?.results ?? []) {
          if (r.device && r.driver && r.pool) {
            found.push({
              claim: name,
              device: r.device,
              driver: r.driver,
              pool: r.pool,
            });
          }
        }
      }
      if (found.length > 0 && pod.metadata?.name) {
        result.set(pod.metadata.name, found);
      }
    }
    return result;
  }

  /** The Workloads owned by the given pods (UID to name). */
  private async workloadsOf(
    namespace: string,
    podNames: Map<string, string>,
  ): Promise<KubernetesObject[]> {
    const uids = [...podNames.keys()].sort();
    const workload = { apiVersion: this.kueueApiVersion, kind: 'Workload' };
    const seen = uids.map(uid => this.indexed?.(workload, namespace, uid));
    const found = seen.every(s => s !== undefined)
      ? (seen as KubernetesObject[][]).flat()
      : await this.listWorkloads(namespace, uids);
    return found.filter(w =>
      (w.metadata?.ownerReferences ?? []).some(
        o => o.kind === 'Pod' && podNames.has(o.uid),
      ),
    );
  }

  /** The Workloads of the pods of these UIDs, listed by Kueue's job-uid label, some UIDs per list. */
  private async listWorkloads(
    namespace: string,
    uids: string[],
  ): Promise<KubernetesObject[]> {
    const found: KubernetesObject[] = [];
    for (let i = 0; i < uids.length; i += UIDS_PER_WORKLOAD_LIST) {
      const chunk = uids.slice(i, i + UIDS_PER_WORKLOAD_LIST);
      found.push(
        ...(await this.listAll({
          apiVersion: this.kueueApiVersion,
          kind: 'Workload',
          namespace,
          labelSelector: `${KUEUE_JOB_UID_LABEL} in (${chunk.join(',')})`,
        })),
      );
    }
    return found;
  }

  private async readOptional(
    ref: ObjectRef,
  ): Promise<KubernetesObject | undefined> {
    try {
      return await this.client.read(ref);
    } catch (error) {
      if (error instanceof KubernetesRequestError && error.statusCode === 404) {
        return undefined;
      }
      throw this.failure(ref, error);
    }
  }

  /**
   * The Warning events about `involved`, from the informers' index; listed when the informers stopped watching since
   * the read began.
   */
  private async warningEventsAbout(
    namespace: string,
    involved: Array<{ kind: string; name: string }>,
  ): Promise<KubernetesObject[]> {
    const events: KubernetesObject[] = [];
    for (const object of involved) {
      const about = this.indexed?.(
        WARNING_EVENTS,
        namespace,
        eventSubjectKey(object),
      );
      if (!about) return this.listAll({ ...WARNING_EVENTS, namespace });
      events.push(...about);
    }
    return events;
  }

  /** Every page of a list. */
  private async listAll(
    options: Omit<ListOptions, 'limit' | 'continueToken'>,
  ): Promise<KubernetesObject[]> {
    const items: KubernetesObject[] = [];
    let continueToken: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      let result: Awaited<ReturnType<KubernetesObjectClient['list']>>;
      try {
        result = await this.client.list({
          ...options,
          limit: this.pageSize,
          continueToken,
        });
      } catch (error) {
        throw this.failure(
          {
            apiVersion: options.apiVersion,
            kind: options.kind,
            namespace: options.namespace,
            name: `(${
              options.labelSelector ?? options.fieldSelector ?? 'all'
            })`,
          },
          error,
        );
      }
      items.push(...result.items);
      continueToken = result.continueToken;
      if (!continueToken) break;
    }
    return items;
  }

  private failure(ref: ObjectRef, error: unknown): Error {
    if (error instanceof KubernetesRequestError) {
      return new KubernetesApplyError(
        this.cluster,
        ref,
        1,
        error.message,
        error.statusCode,
        error,
      );
    }
    return error as Error;
  }
}
