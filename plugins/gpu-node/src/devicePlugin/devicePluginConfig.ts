import { Pool } from '@gpu-platform/backstage-plugin-gpu-common';

/**
 * One named config of the NVIDIA device plugin (`version: v1` of its config file).
 *
 * @public
 */
export interface DevicePluginConfig {
  version: 'v1';
  flags: { migStrategy: 'none' | 'mixed' };
  sharing?: {
    timeSlicing?: DevicePluginSharing;
    mps?: DevicePluginSharing;
  };
}

/**
 * The `sharing.timeSlicing` or `sharing.mps` block of a device-plugin config.
 *
 * @public
 */
export interface DevicePluginSharing {
  renameByDefault: boolean;
  failRequestsGreaterThanOne: boolean;
  resources: Array<{ name: 'nvidia.com/gpu'; replicas: number }>;
}

/**
 * The device-plugin config a pool's nodes need: MIG pools use the mixed strategy (one `nvidia.com/mig-<profile>`
 * resource per profile); MPS and time-slicing pools advertise each GPU R times, optionally renamed to
 * `nvidia.com/gpu.shared`, and refuse requests for more than one shared replica.
 *
 * @public
 */
export function devicePluginConfig(pool: Pool): DevicePluginConfig {
  const sharing = pool.sharing;
  if (sharing.type === 'mig') {
    return { version: 'v1', flags: { migStrategy: 'mixed' } };
  }
  if (sharing.type === 'mps' || sharing.type === 'time-slicing') {
    const block: DevicePluginSharing = {
      renameByDefault: pool.renameByDefault,
      failRequestsGreaterThanOne: true,
      resources: [{ name: 'nvidia.com/gpu', replicas: sharing.replicas }],
    };
    return {
      version: 'v1',
      flags: { migStrategy: 'none' },
      sharing: sharing.type === 'mps' ? { mps: block } : { timeSlicing: block },
    };
  }
  return { version: 'v1', flags: { migStrategy: 'none' } };
}
