/** The DCGM and vLLM metric names live in gpu-common, so the alert rules gpu-node renders watch what these views read. */
export { DCGM, VLLM } from '@gpu-platform/backstage-plugin-gpu-common';

/** Bytes in one MiB (DCGM reports framebuffer memory in MiB). */
export const MIB = 1024 * 1024;

/** kube-state-metrics series the usage views read: which pods hold GPUs on which node (extended resources are
 * sanitised, `nvidia.com/gpu` and `nvidia.com/gpu.shared` read `nvidia_com_gpu` and `nvidia_com_gpu_shared`). */
export const KUBE_STATE = {
  resourceRequests: 'kube_pod_container_resource_requests',
  gpuResource: 'nvidia_com_gpu.*',
} as const;
