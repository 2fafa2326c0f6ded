import {
  DRA_GPU_RESOURCE,
  DRA_MIG_DEVICES_RESOURCE,
  NVIDIA_GPU_DEVICE_CLASS,
  NVIDIA_MIG_DEVICE_CLASS,
  Platform,
} from '@gpu-platform/backstage-plugin-gpu-common';

/**
 * One entry of `resources.deviceClassMappings` in Kueue's Configuration (`config.kueue.x-k8s.io/v1beta2`, Kueue
 * v0.18 or later with the `KueueDRAIntegration` feature gate, on by default): Kueue charges each device a
 * ResourceClaimTemplate asks of a listed class as one of `name`.
 *
 * @public
 */
export interface KueueDeviceClassMapping {
  name: string;
  deviceClassNames: string[];
  /**
   * Counter sources (Kueue v0.19): the class is charged the driver counter `name` of the devices it matches instead of
   * one per device (`DYNAMIC_MIG_DEVICE_CLASS_MAPPING`).
   */
  sources?: Array<{
    counter: {
      name: string;
      driver: string;
      deviceSelector: { cel: { expression: string } };
    };
  }>;
}

/**
 * Every mapping the product's DRA pools rely on: whole GPUs (`gpu.nvidia.com`) in `nvidia.com/gpu`, MIG devices
 * (`mig.nvidia.com`) in `gpu.backstage.io/mig-devices`.
 *
 * @public
 */
export const NVIDIA_DEVICE_CLASS_MAPPINGS: readonly KueueDeviceClassMapping[] =
  [
    { name: DRA_GPU_RESOURCE, deviceClassNames: [NVIDIA_GPU_DEVICE_CLASS] },
    {
      name: DRA_MIG_DEVICES_RESOURCE,
      deviceClassNames: [NVIDIA_MIG_DEVICE_CLASS],
    },
  ];

/**
 * The `deviceClassMappings` Kueue needs for the platform's DRA pools: the whole-GPU mapping when a DRA pool serves
 * whole GPUs, the MIG mapping when one serves MIG devices. Empty without DRA pools. The operator adds them under
 * `resources.deviceClassMappings` of Kueue's Configuration, beside the resource transformations.
 *
 * @public
 */
export function renderDeviceClassMappings(
  platform: Platform,
): KueueDeviceClassMapping[] {
  const dra = platform.pools.filter(p => p.allocation.backend === 'dra');
  const classes = new Set<string>(
    dra.map(pool =>
      pool.sharing.type === 'mig'
        ? NVIDIA_MIG_DEVICE_CLASS
        : NVIDIA_GPU_DEVICE_CLASS,
    ),
  );
  return NVIDIA_DEVICE_CLASS_MAPPINGS.filter(mapping =>
    mapping.deviceClassNames.some(name => classes.has(name)),
  ).map(mapping => ({
    ...mapping,
    deviceClassNames: [...mapping.deviceClassNames],
  }));
}
