import type {
  V1LabelSelector,
  V1ObjectMeta,
  V1Toleration,
} from '@kubernetes/client-node';

/**
 * Kueue API versions the renderer can produce. `v1beta2` is Kueue's storage version since v0.16; `v1beta1` is for
 * older clusters.
 *
 * @public
 */
export type KueueApiVersion =
  | 'kueue.x-k8s.io/v1beta2'
  | 'kueue.x-k8s.io/v1beta1';

/**
 * A taint the nodes of a ResourceFlavor carry.
 *
 * @public
 */
export interface KueueNodeTaint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

/**
 * Kueue ResourceFlavor (cluster-scoped): one per GPU pool.
 *
 * @public
 */
export interface ResourceFlavor {
  apiVersion: KueueApiVersion;
  kind: 'ResourceFlavor';
  metadata: V1ObjectMeta;
  spec: {
    nodeLabels?: Record<string, string>;
    nodeTaints?: KueueNodeTaint[];
    tolerations?: V1Toleration[];
  };
}

/**
 * Quota of one resource in one flavor of a ClusterQueue. Quantities are Kubernetes quantity strings.
 *
 * @public
 */
export interface ResourceQuota {
  name: string;
  nominalQuota: string;
  borrowingLimit?: string;
  lendingLimit?: string;
}

/**
 * One flavor's quotas in a resource group; lists every covered resource of the group, in the same order.
 *
 * @public
 */
export interface FlavorQuotas {
  name: string;
  resources: ResourceQuota[];
}

/**
 * A ClusterQueue resource group: resources that are assigned a flavor together.
 *
 * @public
 */
export interface ResourceGroup {
  coveredResources: string[];
  flavors: FlavorQuotas[];
}

/**
 * Kueue ClusterQueue (cluster-scoped): one per team. The cohort is `cohortName` in v1beta2 and `cohort` in v1beta1.
 *
 * @public
 */
export interface ClusterQueue {
  apiVersion: KueueApiVersion;
  kind: 'ClusterQueue';
  metadata: V1ObjectMeta;
  spec: {
    cohortName?: string;
    cohort?: string;
    namespaceSelector: V1LabelSelector;
    queueingStrategy: 'BestEffortFIFO' | 'StrictFIFO';
    preemption: {
      withinClusterQueue:
        | 'Never'
        | 'LowerPriority'
        | 'LowerOrNewerEqualPriority';
      reclaimWithinCohort: 'Never' | 'LowerPriority' | 'Any';
      borrowWithinCohort: {
        policy: 'Never' | 'LowerPriority';
        maxPriorityThreshold?: number;
      };
    };
    resourceGroups: ResourceGroup[];
  };
}

/**
 * Kueue Cohort (cluster-scoped): the ClusterQueues of all teams borrow unused quota from each other through it.
 *
 * @public
 */
export interface Cohort {
  apiVersion: KueueApiVersion;
  kind: 'Cohort';
  metadata: V1ObjectMeta;
  spec: {
    parentName?: string;
  };
}

/**
 * Kueue WorkloadPriorityClass (cluster-scoped), chosen by a workload's `kueue.x-k8s.io/priority-class` label.
 *
 * @public
 */
export interface WorkloadPriorityClass {
  apiVersion: KueueApiVersion;
  kind: 'WorkloadPriorityClass';
  metadata: V1ObjectMeta;
  value: number;
  description?: string;
}

/**
 * Kueue LocalQueue (namespaced): points a team namespace at the team's ClusterQueue.
 *
 * @public
 */
export interface LocalQueue {
  apiVersion: KueueApiVersion;
  kind: 'LocalQueue';
  metadata: V1ObjectMeta;
  spec: {
    clusterQueue: string;
  };
}
