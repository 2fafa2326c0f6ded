/**
 * The node class a Karpenter NodePool launches nodes with (`spec.template.spec.nodeClassRef`), e.g. AWS's
 * `{ group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu }`.
 *
 * @public
 */
export interface NodeClassRef {
  group: string;
  kind: string;
  name: string;
}

/**
 * How one Karpenter-managed pool's NodePool is rendered (defaults applied).
 *
 * @public
 */
export interface PoolKarpenter {
  /** The pool's name (also the NodePool's). */
  pool: string;
  nodeClassRef: NodeClassRef;
  /** EC2 instance families (`karpenter.k8s.aws/instance-family In [...]`); empty when the config names none. */
  instanceFamilies: string[];
  /** `spec.disruption.consolidateAfter`: a duration such as `5m`, or `Never`. */
  consolidateAfter: string;
}

/**
 * Where alert rules go: one cluster-wide PrometheusRule, or one per team in the team's first namespace matching the
 * team's namespaces.
 *
 * @public
 */
export type AlertScope = 'cluster' | 'team';

/**
 * The alert rules' settings (defaults applied).
 *
 * @public
 */
export interface AlertSettings {
  scope: AlertScope;
  /** Namespace of the cluster-wide PrometheusRule. */
  namespace: string;
  /** Extra labels on each PrometheusRule, e.g. what the Prometheus's `ruleSelector` selects. */
  labels: Record<string, string>;
  /** WorkloadPriorityClasses of the production environments: their pods' cards are production cards. */
  productionPriorityClasses: string[];
  /** vLLM queue alert: `vllm:num_requests_waiting` above this ... */
  queueWaitingAbove: number;
  /** ... for this long (a Prometheus duration such as `5m`). */
  queueFor: string;
}

/**
 * What the platform team runs beside Kueue, read from `gpu.karpenter`, `gpu.pools[].karpenter` and `gpu.alerts`:
 * the Karpenter NodePools of the managed pools (in pool order) and the alert rules (`undefined` when disabled).
 *
 * @public
 */
export interface PlatformOperations {
  nodePools: PoolKarpenter[];
  alerts: AlertSettings | undefined;
}
