import {
  GpuDomainError,
  NodeTaint,
  Pool,
} from '@gpu-platform/backstage-plugin-gpu-common';

/**
 * A pool's taints, each (key, effect) once: a node holds at most one taint per key and effect, so the API server
 * rejects Nodes, and Kueue's ResourceFlavor webhook rejects flavors, that list one twice ("taints must be unique by
 * key and effect pair"). A repeat with the same value (no value and an empty value are the same) is dropped; the
 * first occurrence keeps its place.
 *
 * @throws GpuDomainError `INVALID_CONFIG` when two taints have the same key and effect but different values, which
 *   no node can carry.
 */
export function distinctTaints(
  pool: Pick<Pool, 'name' | 'nodeTaints'>,
): NodeTaint[] {
  const seen = new Map<string, NodeTaint>();
  const result: NodeTaint[] = [];
  for (const taint of pool.nodeTaints) {
    const id = `${taint.key}\u0000${taint.effect}`;
    const previous = seen.get(id);
    if (previous === undefined) {
      seen.set(id, taint);
      result.push(taint);
    } else if ((previous.value ?? '') !== (taint.value ?? '')) {
      throw new GpuDomainError(
        'INVALID_CONFIG',
        `Pool ${pool.name} has two ${taint.effect} taints with key ${
          taint.key
        } (values ${JSON.stringify(previous.value ?? '')} and ${JSON.stringify(
          taint.value ?? '',
        )}); a node holds one taint per key and effect, keep one of them`,
      );
    }
  }
  return result;
}
