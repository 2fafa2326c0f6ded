import type { V1Toleration } from '@kubernetes/client-node';
import { NodeTaint } from '@gpu-platform/backstage-plugin-gpu-common';

/**
 * Tolerations that tolerate exactly the given taints (`Equal` when the taint has a value, `Exists` otherwise).
 *
 * @public
 */
export function tolerationsFor(taints: NodeTaint[]): V1Toleration[] {
  return taints.map(taint =>
    taint.value !== undefined && taint.value !== ''
      ? {
          key: taint.key,
          operator: 'Equal',
          value: taint.value,
          effect: taint.effect,
        }
      : { key: taint.key, operator: 'Exists', effect: taint.effect },
  );
}
