import { Pool, PoolKarpenter } from '@gpu-platform/backstage-plugin-gpu-common';
import { ownershipLabels } from '../labels';
import { nodePoolSelection } from './nodePoolSelection';
import { NodePool } from './types';

/** The resource a NodePool's `limits` caps: the GPUs of the nodes it launches. */
const GPU_RESOURCE = 'nvidia.com/gpu';

/**
 * The Karpenter NodePool of a pool: the pool's capacity type, instance families and instance labels as
 * requirements, its other node labels (and the device-plugin / MIG config labels) and taints on the template, at most
 * `maxNodes x gpusPerNode` GPUs, consolidated when empty or underutilised after the pool's `consolidateAfter`.
 */
export function renderNodePool(
  pool: Pool,
  settings: PoolKarpenter,
  configLabels: Record<string, string>,
): NodePool {
  const { requirements, labels } = nodePoolSelection(
    pool,
    settings,
    configLabels,
  );
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: pool.name, labels: ownershipLabels('platform') },
    spec: {
      template: {
        metadata: Object.keys(labels).length > 0 ? { labels } : undefined,
        spec: {
          nodeClassRef: { ...settings.nodeClassRef },
          requirements,
          taints:
            pool.nodeTaints.length > 0
              ? pool.nodeTaints.map(t => ({
                  key: t.key,
                  value: t.value,
                  effect: t.effect,
                }))
              : undefined,
        },
      },
      limits: { [GPU_RESOURCE]: String(pool.maxNodes * pool.gpusPerNode) },
      disruption: {
        consolidationPolicy: 'WhenEmptyOrUnderutilized',
        consolidateAfter: settings.consolidateAfter,
      },
    },
  };
}
