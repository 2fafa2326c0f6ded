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

/**
 * The DeviceClass dynamic MIG claims name: the NVIDIA DRA driver's MIG devices, as `mig.nvidia.com` selects them, under
 * a class of its own. Kueue v0.19 charges a DeviceClass either per device or through counters, never both: a class
 * with counter sources is skipped by the per-device charge (`pkg/dra/claims.go`, `GetResourceRequestsForResourceClaimTemplates`:
 * `if ... len(mapper.getCounterConfigs(dc)) > 0 { continue }`), and a counter charge of devices that consume no
 * counter (the static MIG devices of `mig.nvidia.com` pools) fails (`pkg/dra/counters.go`, `processCounterCharge`:
 * "matched devices have no consumesCounters entry"). Static DRA MIG pools keep `mig.nvidia.com`, charged per device.
 *
 * @public
 */
export const DYNAMIC_MIG_DEVICE_CLASS = 'mig-dynamic.gpu.backstage.io';

/**
 * The resource Kueue charges dynamic MIG devices in: the SMs the device consumes of its GPU's counter set (the
 * driver's `multiprocessors` counter). A team's ClusterQueue gives a dynamic MIG pool's flavor its GPUs x the GPU's
 * SMs, and the ledger weighs each slice its SMs' share of the GPU (`dynamicMigSliceWeights`).
 *
 * @public
 */
export const DYNAMIC_MIG_RESOURCE = 'gpu.backstage.io/mig-multiprocessors';
