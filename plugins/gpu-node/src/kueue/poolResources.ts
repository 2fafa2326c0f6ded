import {
  DRA_GPU_RESOURCE,
  DRA_MIG_DEVICES_RESOURCE,
  DYNAMIC_MIG_RESOURCE,
  dynamicMigSliceWeights,
  findGpuModel,
  GpuDomainError,
  Platform,
  Pool,
} from '@gpu-platform/backstage-plugin-gpu-common';

/**
 * One extended resource a pool's nodes advertise, per physical GPU.
 *
 * @public
 */
export interface PoolResource {
  /** Container resource name, e.g. `nvidia.com/gpu`, `nvidia.com/gpu.shared`, `nvidia.com/mig-1g.10gb`. */
  name: string;
  /** Units of `name` one physical GPU advertises (1, the sharing replicas R, or the MIG layout's count). */
  perGpu: number;
  /** GPU memory behind one unit, in GiB. */
  memoryGiB: number;
  /** The MIG profile behind one unit, on a MIG pool. */
  migProfile?: string;
}

/**
 * The extended resources a pool's nodes advertise per GPU, as the NVIDIA device plugin configured for the pool's
 * sharing setting publishes them: `nvidia.com/gpu` x 1 for whole GPUs; `nvidia.com/gpu` (or `nvidia.com/gpu.shared`
 * with `renameByDefault`) x R for MPS and time-slicing; one `nvidia.com/mig-<profile>` per profile of the MIG layout
 * (mixed strategy), sorted by name. A DRA pool's are the resources Kueue charges its claims in
 * (`deviceClassMappings`): `nvidia.com/gpu` x 1 for whole GPUs, one `gpu.backstage.io/mig-devices` per MIG device
 * (a static DRA MIG pool holds one profile), or on a dynamic MIG pool `gpu.backstage.io/mig-multiprocessors` x the
 * GPU's SMs (Kueue charges each device its SMs through the driver's counter).
 *
 * @public
 */
export function poolResources(platform: Platform, pool: Pool): PoolResource[] {
  const model = findGpuModel(platform, pool.gpuModel);
  const sharing = pool.sharing;
  switch (sharing.type) {
    case 'none':
      return [
        { name: DRA_GPU_RESOURCE, perGpu: 1, memoryGiB: model.memoryGiB },
      ];
    case 'mps':
    case 'time-slicing':
      return [
        {
          name: pool.renameByDefault
            ? 'nvidia.com/gpu.shared'
            : 'nvidia.com/gpu',
          perGpu: sharing.replicas,
          memoryGiB: model.memoryGiB / sharing.replicas,
        },
      ];
    case 'mig':
      if (
        pool.allocation.backend === 'dra' &&
        sharing.partitioning === 'dynamic'
      ) {
        const sms = dynamicMigSliceWeights(
          model,
          sharing.layout,
        ).multiprocessorsPerGpu;
        return [
          {
            name: DYNAMIC_MIG_RESOURCE,
            perGpu: sms,
            memoryGiB: model.memoryGiB / sms,
          },
        ];
      }
      return Object.entries(sharing.layout)
        .filter(([, count]) => count > 0)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([profileName, count]) => {
          const profile = model.migProfiles.find(p => p.name === profileName);
          if (!profile) {
            throw new GpuDomainError(
              'INVALID_CONFIG',
              `Pool ${pool.name} has MIG profile ${profileName} in its layout, which ${model.name} does not offer; ` +
                `allowed: ${
                  model.migProfiles.map(p => p.name).join(', ') ||
                  'none (no MIG)'
                }`,
              { allowed: model.migProfiles.map(p => p.name) },
            );
          }
          return {
            name:
              pool.allocation.backend === 'dra'
                ? DRA_MIG_DEVICES_RESOURCE
                : `nvidia.com/mig-${profileName}`,
            perGpu: count,
            memoryGiB: (profile.memoryGb * 1e9) / 2 ** 30,
            migProfile: profileName,
          };
        });
    default:
      throw new GpuDomainError(
        'INVALID_CONFIG',
        `Pool ${pool.name} has unknown sharing type ${
          (sharing as { type: string }).type
        }; ` + 'allowed: none, mig, mps, time-slicing',
        { allowed: ['none', 'mig', 'mps', 'time-slicing'] },
      );
  }
}
