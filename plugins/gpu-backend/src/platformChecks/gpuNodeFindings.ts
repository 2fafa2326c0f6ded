import type { V1Node } from '@kubernetes/client-node';
import {
  PlatformFinding,
  repelsUntolerated,
} from '@gpu-platform/backstage-plugin-gpu-common';

/** The device plugin's resources: whole GPUs, shared GPUs (`nvidia.com/gpu.shared`) and MIG slices. */
export function isGpuResource(name: string): boolean {
  return (
    name === 'nvidia.com/gpu' ||
    name.startsWith('nvidia.com/gpu.') ||
    name.startsWith('nvidia.com/mig-')
  );
}

function hasGpus(resources: Record<string, string> | undefined): boolean {
  return Object.entries(resources ?? {}).some(
    ([name, quantity]) => isGpuResource(name) && quantity !== '0',
  );
}

/** `gpu-nodes-untainted`: Nodes with GPU capacity or allocatable and no NoSchedule (or NoExecute) taint. */
export function gpuNodeFindings(
  cluster: string,
  nodes: V1Node[],
): PlatformFinding[] {
  return nodes
    .filter(
      node =>
        (hasGpus(node.status?.capacity) || hasGpus(node.status?.allocatable)) &&
        !(node.spec?.taints ?? []).some(repelsUntolerated),
    )
    .map(node => ({
      id: 'gpu-nodes-untainted',
      severity: 'warning',
      source: 'cluster',
      cluster,
      where: `Node ${node.metadata?.name}`,
      message: `GPU node ${node.metadata?.name} has no NoSchedule taint: pods without a GPU request can be scheduled on it and keep it, and its GPUs, running for CPU work`,
      fix: `Taint it, e.g. kubectl taint node ${node.metadata?.name} nvidia.com/gpu=present:NoSchedule, and taint the node group or NodePool it comes from (and the pool's gpu.pools[].nodeTaints) so new nodes start tainted`,
    }));
}
