import { GpuDomainError, Pool } from '@gpu-platform/backstage-plugin-gpu-common';
import { ownershipLabels } from '../labels';
import { distinctTaints } from './distinctTaints';
import { tolerationsFor } from './tolerationsFor';
import { KueueApiVersion, ResourceFlavor } from './types';

/** Kueue's limit on `ResourceFlavor.spec.nodeLabels`, `nodeTaints` and `tolerations`. */
const MAX_FLAVOR_ENTRIES = 8;

/**
 * The ResourceFlavor of a pool: its node labels (injected into admitted pods), its node taints (each key and effect
 * once, see {@link distinctTaints}) and the tolerations for them.
 */
export function renderResourceFlavor(
  pool: Pick<Pool, 'name' | 'nodeLabels' | 'nodeTaints'>,
  apiVersion: KueueApiVersion,
): ResourceFlavor {
  const labelCount = Object.keys(pool.nodeLabels).length;
  const taints = distinctTaints(pool);
  if (labelCount > MAX_FLAVOR_ENTRIES || taints.length > MAX_FLAVOR_ENTRIES) {
    throw new GpuDomainError(
      'INVALID_CONFIG',
      `Pool ${pool.name} has ${labelCount} node labels and ${taints.length} taints; ` +
        `a Kueue ResourceFlavor allows at most ${MAX_FLAVOR_ENTRIES} of each`,
    );
  }
  return {
    apiVersion,
    kind: 'ResourceFlavor',
    metadata: { name: pool.name, labels: ownershipLabels('platform') },
    spec: {
      nodeLabels: labelCount > 0 ? { ...pool.nodeLabels } : undefined,
      nodeTaints:
        taints.length > 0
          ? taints.map(t => ({
              key: t.key,
              value: t.value,
              effect: t.effect,
            }))
          : undefined,
      tolerations: taints.length > 0 ? tolerationsFor(taints) : undefined,
    },
  };
}
