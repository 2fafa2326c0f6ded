import {
  GpuDomainError,
  Pool,
  PoolKarpenter,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { NodePoolRequirement } from './types';

export const CAPACITY_TYPE_LABEL = 'karpenter.sh/capacity-type';
export const INSTANCE_FAMILY_LABEL = 'karpenter.k8s.aws/instance-family';

/** Labels Karpenter sets on a node itself and refuses in a NodePool's template labels. */
const RESTRICTED_LABELS = new Set([
  'karpenter.sh/nodepool',
  'kubernetes.io/hostname',
]);

/**
 * Whether a label is one Karpenter decides from the instance it launches (capacity type, instance type or family,
 * zone, architecture: the `karpenter.sh`, `karpenter.k8s.aws` and `*kubernetes.io` domains), so a NodePool selects
 * it with a requirement rather than setting it.
 */
function isInstanceLabel(key: string): boolean {
  const slash = key.indexOf('/');
  if (slash < 0) return false;
  const domain = key.slice(0, slash);
  return (
    domain === 'karpenter.sh' ||
    domain.startsWith('karpenter.') ||
    domain === 'kubernetes.io' ||
    domain.endsWith('.kubernetes.io') ||
    domain.endsWith('.k8s.io')
  );
}

/**
 * What a pool's NodePool selects and sets: one `In` requirement for the capacity type, the instance families (from
 * the pool's Karpenter settings) and each of the pool's node labels that describes the instance (instance type, zone,
 * ...); every other node label goes on the template, with the device-plugin and MIG config labels the pool's nodes
 * need.
 *
 * @throws GpuDomainError `INVALID_CONFIG` for a label Karpenter reserves, or a `karpenter.sh/capacity-type` label
 *   that disagrees with the pool's `capacityType`.
 */
export function nodePoolSelection(
  pool: Pool,
  settings: PoolKarpenter,
  configLabels: Record<string, string>,
): { requirements: NodePoolRequirement[]; labels: Record<string, string> } {
  const requirements = new Map<string, string[]>([
    [CAPACITY_TYPE_LABEL, [pool.capacityType]],
  ]);
  if (settings.instanceFamilies.length > 0) {
    requirements.set(INSTANCE_FAMILY_LABEL, [...settings.instanceFamilies]);
  }
  const labels: Record<string, string> = {};
  for (const [key, value] of Object.entries({
    ...configLabels,
    ...pool.nodeLabels,
  })) {
    if (RESTRICTED_LABELS.has(key)) {
      throw new GpuDomainError(
        'INVALID_CONFIG',
        `Pool ${pool.name}: Karpenter sets node label ${key} itself; remove it from the pool's nodeLabels or set karpenter.managed: false`,
      );
    }
    if (!isInstanceLabel(key)) {
      labels[key] = value;
      continue;
    }
    const existing = requirements.get(key);
    if (existing && !existing.includes(value)) {
      throw new GpuDomainError(
        'INVALID_CONFIG',
        `Pool ${
          pool.name
        }: node label ${key}=${value} contradicts ${key} In [${existing.join(
          ', ',
        )}] (${
          key === CAPACITY_TYPE_LABEL
            ? "the pool's capacityType"
            : 'its karpenter.instanceFamilies'
        })`,
      );
    }
    requirements.set(key, [value]);
  }
  return {
    requirements: [...requirements].map(([key, values]) => ({
      key,
      operator: 'In',
      values,
    })),
    labels,
  };
}
