import { PoolPacker } from './PoolPacker';

/**
 * Packs dedicated replicas (whole GPUs, all on one node) onto a pool's nodes, best fit: the node with the fewest free
 * GPUs that still has enough.
 */
export function wholeGpuPacker(
  gpusPerNode: number,
  maxNodes: number,
): PoolPacker {
  /** Free GPU slots (0..gpusPerNode-1) per opened node. */
  const nodes: number[][] = [];
  /** Opened nodes by their count of free GPUs. */
  const byFree: Array<Set<number>> = Array.from(
    { length: gpusPerNode + 1 },
    () => new Set(),
  );
  let used = 0;

  function take(node: number, count: number): number[] {
    const free = nodes[node];
    byFree[free.length].delete(node);
    const slots = free.splice(0, count);
    byFree[free.length].add(node);
    used += count;
    return slots.map(slot => node * gpusPerNode + slot);
  }

  return {
    place(_demand, gpusPerReplica) {
      if (gpusPerReplica > gpusPerNode) {
        return undefined;
      }
      for (let free = gpusPerReplica; free <= gpusPerNode; free++) {
        for (const node of byFree[free]) {
          return take(node, gpusPerReplica);
        }
      }
      if (nodes.length >= maxNodes) {
        return undefined;
      }
      nodes.push(Array.from({ length: gpusPerNode }, (_, slot) => slot));
      byFree[gpusPerNode].add(nodes.length - 1);
      return take(nodes.length - 1, gpusPerReplica);
    },
    release(_demand, gpus) {
      for (const gpu of gpus) {
        const node = Math.floor(gpu / gpusPerNode);
        const free = nodes[node];
        byFree[free.length].delete(node);
        free.push(gpu % gpusPerNode);
        free.sort((a, b) => a - b);
        byFree[free.length].add(node);
        used -= 1;
      }
    },
    gpusUsed: () => used,
    migLayouts: () => [],
  };
}
