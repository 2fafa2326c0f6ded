import { GpuServiceView } from './types';

/**
 * A status condition as the API server reports it (Deployment, Pod or Kueue Workload).
 *
 * @public
 */
export interface ClusterCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

/**
 * The service's Deployment as the cluster reports it.
 *
 * @public
 */
export interface ClusterDeploymentStatus {
  name: string;
  namespace: string;
  /** False when the cluster has no such Deployment (the counts are then 0). */
  exists: boolean;
  /** Replicas the Deployment asks for (`spec.replicas`, 1 when unset). */
  replicas: number;
  /** Pods of the Deployment, old and new (`status.replicas`). */
  currentReplicas: number;
  updatedReplicas: number;
  readyReplicas: number;
  availableReplicas: number;
  /**
   * The rollout is complete and every replica it asks for is available, decided as `kubectl rollout status` does:
   * the controller observed the latest generation, every replica is updated, no old one is left and every updated
   * one is available. Stricter than the `Available` condition, which a one-replica Deployment with
   * `maxUnavailable: 1` reports `True` without any pod.
   */
  available: boolean;
  /** Why it is not available, in words (absent when available). */
  reason?: string;
  /** The Deployment's `Available`, `Progressing` and `ReplicaFailure` conditions as reported. */
  conditions: ClusterCondition[];
}

/**
 * Where Kueue is with one Workload: `admitted` (quota reserved and admission checks passed: its pod may be
 * scheduled), `quota-reserved` (waiting for admission checks), `pending` (no quota reserved yet, see `reason` and
 * `message`), `finished`.
 *
 * @public
 */
export type WorkloadAdmissionState =
  | 'admitted'
  | 'quota-reserved'
  | 'pending'
  | 'finished';

/**
 * The Kueue Workload of one pod of the service (Kueue's pod integration makes one per pod, owned by the pod).
 *
 * @public
 */
export interface ClusterWorkloadStatus {
  name: string;
  /** Name of the pod that owns it. */
  pod?: string;
  state: WorkloadAdmissionState;
  /** Reason of the Workload's `QuotaReserved` condition while pending, e.g. `Pending`. */
  reason?: string;
  /**
   * Kueue's message while pending, e.g.
   * `couldn't assign flavors to pod set main: insufficient quota for nvidia.com/gpu in flavor l4-ondemand, ...`.
   */
  message?: string;
  /** ClusterQueue that admitted it (`status.admission.clusterQueue`). */
  clusterQueue?: string;
  /** Flavor assigned per resource of each pod set (`status.admission.podSetAssignments`). */
  podSets: { name: string; count?: number; flavors: Record<string, string> }[];
}

/**
 * Kueue admission of the service's pods.
 *
 * @public
 */
export interface ClusterAdmissionStatus {
  /**
   * `pending` when at least one Workload waits for quota or admission checks, `admitted` when every Workload is
   * admitted, `none` when there is no Workload (no pod yet, or Kueue has not seen it).
   */
  state: 'admitted' | 'pending' | 'none';
  admitted: number;
  pending: number;
  /** ClusterQueue of the admitted Workloads. */
  clusterQueue?: string;
  /** Flavor per resource over the admitted Workloads, e.g. `{ "nvidia.com/gpu": "l4-ondemand" }`. */
  flavors: Record<string, string>;
  /** Reason and message of the first pending Workload (by name). */
  reason?: string;
  message?: string;
  workloads: ClusterWorkloadStatus[];
}

/**
 * One pod of the service.
 *
 * @public
 */
export interface ClusterPodStatus {
  name: string;
  /** Node it is bound to (`spec.nodeName`); absent until scheduled. */
  node?: string;
  /** `Pending`, `Running`, `Succeeded`, `Failed` or `Unknown`. */
  phase: string;
  /** The pod's `Ready` condition is `True`. */
  ready: boolean;
  /** Container restarts, summed. */
  restarts: number;
  /** `spec.schedulingGates`, e.g. `kueue.x-k8s.io/admission` until Kueue admits the pod's Workload. */
  schedulingGates: string[];
  /**
   * Why it is not running or not ready: a waiting or terminated container's reason (`CrashLoopBackOff`,
   * `ErrImagePull`, ...), else the reason of a false `PodScheduled` or `Ready` condition (`SchedulingGated`,
   * `Unschedulable`, ...).
   */
  reason?: string;
  message?: string;
  /** Being deleted (`metadata.deletionTimestamp` set). */
  terminating?: boolean;
  /**
   * On a DRA pool: the devices the scheduler allocated to the pod's ResourceClaims (`status.allocation`); absent for
   * a pod whose claims are not allocated yet and on device-plugin pools.
   */
  devices?: ClusterPodDevice[];
}

/**
 * A device allocated to a pod's ResourceClaim: its name in the driver's ResourceSlice (`gpu-0`,
 * `gpu-0-mig-1g10gb-19-0`), the driver, and the pool it came from (the node's name for the NVIDIA driver).
 *
 * @public
 */
export interface ClusterPodDevice {
  claim: string;
  device: string;
  driver: string;
  pool: string;
}

/**
 * A Warning event of the service's Deployment, one of its ReplicaSets or pods, or its model cache claim.
 *
 * @public
 */
export interface ClusterWarning {
  object: { kind: string; name: string };
  /** e.g. `FailedScheduling`, `BackOff`, `Failed`, `FailedCreate`. */
  reason: string;
  message: string;
  /** How often it happened (`count`, or `series.count` of events recorded through events.k8s.io). */
  count: number;
  /** When it was last seen (`series.lastObservedTime`, `lastTimestamp` or `eventTime`). */
  lastSeen?: string;
}

/**
 * An object of a service's stored manifests, other than its Deployment, that its cluster does not have.
 *
 * @public
 */
export interface ClusterMissingObject {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

/**
 * What the cluster says about a service in apply mode, read live (`GET /api/gpu/services/:id`).
 *
 * @public
 */
export interface ServiceClusterStatus {
  /** Cluster name. */
  cluster: string;
  /** When the cluster was read (or the read was attempted). */
  observedAt: string;
  deployment?: ClusterDeploymentStatus;
  admission?: ClusterAdmissionStatus;
  /** Pods by name. */
  pods?: ClusterPodStatus[];
  /** Warning events, newest first (at most 20). */
  warnings?: ClusterWarning[];
  /**
   * The objects of the service's stored manifests, other than its Deployment (see `deployment.exists`), that the
   * cluster does not have: drift, which a `starting` or `ready` service has applied again. Absent when none is.
   */
  missing?: ClusterMissingObject[];
  /**
   * Set when the cluster could not be read in time: the other fields are then absent and the service's `status` is
   * the last one stored.
   */
  error?: string;
}

/**
 * Response of `GET /api/gpu/services/:id`: the service, its rendered manifests and, in apply mode, what the cluster
 * says about it.
 *
 * @public
 */
export interface GpuServiceDetail extends GpuServiceView {
  manifests: Array<{
    apiVersion: string;
    kind: string;
    metadata: { name: string; namespace?: string };
    [key: string]: unknown;
  }>;
  /** Only for services in apply mode that may have objects in the cluster. */
  clusterStatus?: ServiceClusterStatus;
}
