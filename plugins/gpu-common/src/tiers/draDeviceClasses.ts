/**
 * The DeviceClass of whole GPUs the NVIDIA DRA driver's chart installs (selects `type == 'gpu'` devices of driver
 * `gpu.nvidia.com`, and on `resource.k8s.io/v1` maps the extended resource `nvidia.com/gpu` to itself).
 *
 * @public
 */
export const NVIDIA_GPU_DEVICE_CLASS = 'gpu.nvidia.com';

/**
 * The DeviceClass of MIG devices the NVIDIA DRA driver's chart installs (selects `type == 'mig'` devices).
 *
 * @public
 */
export const NVIDIA_MIG_DEVICE_CLASS = 'mig.nvidia.com';

/**
 * The DRA driver name the NVIDIA driver publishes its GPUs and MIG devices under (also the attribute domain).
 *
 * @public
 */
export const NVIDIA_DRA_DRIVER = 'gpu.nvidia.com';

/**
 * The resource Kueue charges a claim of whole GPUs in (`deviceClassMappings`): `nvidia.com/gpu`, the name the
 * device plugin's pools count in. The driver's `gpu.nvidia.com` class declares `extendedResourceName: nvidia.com/gpu`,
 * and Kueue charges an extended resource backed by a mapped class in the mapping's name, so any other name would move
 * the device plugin pools' `nvidia.com/gpu` requests to it too.
 *
 * @public
 */
export const DRA_GPU_RESOURCE = 'nvidia.com/gpu';

/**
 * The resource Kueue charges a claim of MIG devices in (`deviceClassMappings`): one per device, whatever its profile,
 * which is why a DRA MIG pool holds one profile.
 *
 * @public
 */
export const DRA_MIG_DEVICES_RESOURCE = 'gpu.backstage.io/mig-devices';
