import { GpuDomainError } from '@gpu-platform/backstage-plugin-gpu-common';

/**
 * Prefixes of environment variables that choose which GPUs a container sees and how it shares them: the NVIDIA
 * container toolkit's (`NVIDIA_VISIBLE_DEVICES`, `NVIDIA_DRIVER_CAPABILITIES`, ...) and MPS's
 * (`CUDA_MPS_PIPE_DIRECTORY`, `CUDA_MPS_ACTIVE_THREAD_PERCENTAGE`, ...). The device plugin sets them for the
 * devices it allocated; one set by the user (`NVIDIA_VISIBLE_DEVICES=all`) could, on nodes whose toolkit honours
 * it, show the pod every GPU of its node.
 */
export const DEVICE_ENV_PREFIXES = ['NVIDIA_', 'CUDA_MPS_'] as const;

/**
 * Refuses user-supplied environment variables that only the device plugin may set (see {@link DEVICE_ENV_PREFIXES}),
 * naming the first such key.
 *
 * @throws GpuDomainError `OUT_OF_RANGE`.
 */
export function checkUserEnv(env: Record<string, string> | undefined): void {
  for (const key of Object.keys(env ?? {})) {
    const prefix = DEVICE_ENV_PREFIXES.find(p => key.toUpperCase().startsWith(p));
    if (prefix) {
      throw new GpuDomainError(
        'OUT_OF_RANGE',
        `env ${key} is not allowed: ${DEVICE_ENV_PREFIXES.map(
          p => `${p}*`,
        ).join(
          ' and ',
        )} variables choose the GPUs a container sees, and the device plugin sets them for the GPUs it allocated`,
      );
    }
  }
}
