import {
  DRA_GPU_RESOURCE,
  DRA_MIG_DEVICES_RESOURCE,
  NVIDIA_GPU_DEVICE_CLASS,
  DYNAMIC_MIG_DEVICE_CLASS,
  NVIDIA_MIG_DEVICE_CLASS,
  Platform,
  Pool,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { DYNAMIC_MIG_DEVICE_CLASS_MAPPING } from './dynamicMig';

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
 * whole GPUs, the MIG mapping when a static one serves MIG devices, `DYNAMIC_MIG_DEVICE_CLASS_MAPPING` (SMs through the
 * driver's counter) when a dynamic MIG pool does. Empty without DRA pools. The operator adds them under
 * `resources.deviceClassMappings` of Kueue's Configuration, beside the resource transformations.
 *
 * @public
 */
export function renderDeviceClassMappings(
  platform: Platform,
): KueueDeviceClassMapping[] {
  const dra = platform.pools.filter(p => p.allocation.backend === 'dra');
  const classes = new Set<string>(dra.map(draDeviceClass));
  return [...NVIDIA_DEVICE_CLASS_MAPPINGS, DYNAMIC_MIG_DEVICE_CLASS_MAPPING]
    .filter(mapping => mapping.deviceClassNames.some(name => classes.has(name)))
    .map(mapping => structuredClone(mapping));
}

/**
 * The DeviceClass a DRA pool's claims name: `gpu.nvidia.com` for whole GPUs, `mig.nvidia.com` on a static MIG pool,
 * `DYNAMIC_MIG_DEVICE_CLASS` on a dynamic one.
 *
 * @public
 */
export function draDeviceClass(pool: Pool): string {
  if (pool.sharing.type !== 'mig') return NVIDIA_GPU_DEVICE_CLASS;
  return pool.sharing.partitioning === 'dynamic'
    ? DYNAMIC_MIG_DEVICE_CLASS
    : NVIDIA_MIG_DEVICE_CLASS;
}
