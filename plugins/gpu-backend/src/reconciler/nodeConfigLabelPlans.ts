import {
  Platform,
  PlatformOperations,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  DEVICE_PLUGIN_CONFIG_LABEL,
  MIG_CONFIG_LABEL,
  nodeConfigLabels,
} from '@gpu-platform/backstage-plugin-gpu-node';

/** The config labels one pool's existing nodes get, and the labels that find those nodes. */
export interface NodeConfigLabelPlan {
  pool: string;
  /** The pool's node labels but the config labels themselves (a node that lost one must still be found). */
  selector: Record<string, string>;
  /** `nvidia.com/device-plugin.config`, and `nvidia.com/mig.config` on MIG pools (gpu-node `nodeConfigLabels`). */
  labels: Record<string, string>;
}

/**
 * The node config labels of every pool Karpenter does not manage, in pool order. A Karpenter pool's nodes get them
 * from their NodePool's template instead.
 */
export function nodeConfigLabelPlans(
  platform: Platform,
  operations: PlatformOperations,
): NodeConfigLabelPlan[] {
  const karpenterPools = new Set(operations.nodePools.map(n => n.pool));
  const labels = nodeConfigLabels(platform);
  return platform.pools
    .filter(pool => !karpenterPools.has(pool.name))
    .map(pool => ({
      pool: pool.name,
      selector: Object.fromEntries(
        Object.entries(pool.nodeLabels).filter(
          ([key]) =>
            key !== DEVICE_PLUGIN_CONFIG_LABEL && key !== MIG_CONFIG_LABEL,
        ),
      ),
      labels: labels[pool.name],
    }));
}
