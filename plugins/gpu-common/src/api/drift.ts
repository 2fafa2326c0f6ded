import { ClusterMode } from './types';

/**
 * The parts of what the platform delivers to an `apply` cluster, each of which `gpu.reconcile.deliver` can leave to
 * the platform team: the GPU Operator's device-plugin and MIG Manager ConfigMaps, the Kueue objects, the Karpenter
 * NodePools, the alert PrometheusRules, and the device-plugin / MIG config labels of the nodes of pools Karpenter
 * does not manage.
 *
 * @public
 */
export const PLATFORM_PARTS = [
  'gpuOperator',
  'kueue',
  'nodePools',
  'alerts',
  'nodeLabels',
] as const;

/**
 * One part of {@link PLATFORM_PARTS}.
 *
 * @public
 */
export type PlatformPart = (typeof PLATFORM_PARTS)[number];

/**
 * One platform object (or a node's config labels, as kind `Node`) that differs from what the platform and the stored
 * quotas render.
 *
 * @public
 */
export interface PlatformObjectDrift {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  /** `missing` from the cluster, or present with `changed` fields. */
  state: 'missing' | 'changed';
  /** For `changed`: each field we manage whose live value differs. */
  fields?: { path: string; expected: unknown; actual?: unknown }[];
}

/**
 * The former name of {@link PlatformObjectDrift}, from when only Kueue objects were reconciled.
 *
 * @public
 */
export type KueueObjectDrift = PlatformObjectDrift;

/**
 * A rendered object the reconciler could not deliver, and what the cluster lacks for it: `crd-not-installed` (the
 * cluster does not serve its kind), `namespace-missing`, or, for a node's config labels, `conflicting-pools` (the
 * node is matched by pools that need different configs) and `no-node-selector` (a pool without node labels to find
 * its nodes by).
 *
 * @public
 */
export interface UndeliveredObject {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  reason:
    | 'crd-not-installed'
    | 'namespace-missing'
    | 'conflicting-pools'
    | 'no-node-selector';
  /** What is missing and what to install or change. */
  message: string;
}

/**
 * The last reconciliation of one cluster's platform objects (`GET /api/gpu/clusters/drift`).
 *
 * @public
 */
export interface ClusterDriftReport {
  cluster: string;
  mode: ClusterMode;
  /** When the reconciler last ran for the cluster. */
  checkedAt: string;
  /**
   * Objects compared: the platform objects of the delivered parts rendered from the platform config and the stored
   * team quotas that the cluster can take, plus one per labelled node.
   */
  objects: number;
  /** The parts delivered (`gpu.reconcile.deliver`); absent in reports from before they were configurable. */
  parts?: PlatformPart[];
  /** Whether the cluster was compared: only `apply` clusters are read. */
  checked: boolean;
  /** Whether the rendered objects were server-side applied after the comparison. */
  applied: boolean;
  /** No object was missing or changed before the apply; absent when not checked. */
  inSync?: boolean;
  /** The objects that had drifted before the apply. */
  drifted: PlatformObjectDrift[];
  /** Rendered objects not delivered because the cluster lacks what they need; absent when there are none. */
  undelivered?: UndeliveredObject[];
  /** Why the comparison or the apply failed, or why the cluster was not checked. */
  message?: string;
}
