import { Pool } from '@gpu-platform/backstage-plugin-gpu-common';

/**
 * Name of the device-plugin config a pool's nodes select with `nvidia.com/device-plugin.config`: `default` (whole
 * GPUs), `mig-mixed`, `time-slicing-<R>` or `mps-<R>`, with `-shared` appended when the pool renames shared GPUs to
 * `nvidia.com/gpu.shared`.
 *
 * @public
 */
export function devicePluginConfigName(pool: Pool): string {
  const sharing = pool.sharing;
  const shared = pool.renameByDefault ? '-shared' : '';
  switch (sharing.type) {
    case 'mig':
      return 'mig-mixed';
    case 'time-slicing':
      return `time-slicing-${sharing.replicas}${shared}`;
    case 'mps':
      return `mps-${sharing.replicas}${shared}`;
    default:
      return 'default';
  }
}
