import {
  findGpuModel,
  GpuDomainError,
  Platform,
  Pool,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { devicePluginConfig, DevicePluginConfig } from './devicePluginConfig';
import { devicePluginConfigName } from './devicePluginConfigName';
import { migLayoutName } from './migLayoutName';

/**
 * Label the NVIDIA device plugin reads to pick its named config on a node.
 *
 * @public
 */
export const DEVICE_PLUGIN_CONFIG_LABEL = 'nvidia.com/device-plugin.config';

/**
 * Label the NVIDIA MIG Manager reads to pick the MIG layout of a node.
 *
 * @public
 */
export const MIG_CONFIG_LABEL = 'nvidia.com/mig.config';

/**
 * How a pool's nodes must be configured by the GPU Operator.
 *
 * @public
 */
export interface PoolNodeConfig {
  pool: Pool;
  devicePlugin: { name: string; config: DevicePluginConfig };
  /** Static MIG pools only: the layout's name and profile counts per GPU. */
  mig?: { name: string; devices: Record<string, number> };
}

function conflict(
  label: string,
  name: string,
  a: Pool,
  b: Pool,
): GpuDomainError {
  return new GpuDomainError(
    'INVALID_CONFIG',
    `Pools ${a.name} and ${b.name} both select ${label}=${name} but need different configs; ` +
      `give one of them another ${label} node label or the same sharing setting`,
  );
}

/**
 * The device-plugin config and MIG layout of every pool, named by the pool's own `nvidia.com/device-plugin.config` /
 * `nvidia.com/mig.config` node label when it sets one, else by {@link devicePluginConfigName} / {@link migLayoutName}.
 *
 * @throws GpuDomainError `INVALID_CONFIG` when two pools use one name for different configs.
 */
export function poolNodeConfigs(platform: Platform): PoolNodeConfig[] {
  const pluginOwners = new Map<string, { pool: Pool; text: string }>();
  const migOwners = new Map<string, { pool: Pool; text: string }>();
  return platform.pools.map(pool => {
    const pluginName =
      pool.nodeLabels[DEVICE_PLUGIN_CONFIG_LABEL] ??
      devicePluginConfigName(pool);
    const config = devicePluginConfig(pool);
    const configText = JSON.stringify(config);
    const pluginOwner = pluginOwners.get(pluginName);
    if (pluginOwner && pluginOwner.text !== configText) {
      throw conflict(
        DEVICE_PLUGIN_CONFIG_LABEL,
        pluginName,
        pluginOwner.pool,
        pool,
      );
    }
    pluginOwners.set(pluginName, { pool, text: configText });

    const result: PoolNodeConfig = {
      pool,
      devicePlugin: { name: pluginName, config },
    };
    // A dynamic MIG pool's GPUs are carved by the DRA driver on demand: no MIG Manager layout (its `layout` lists the
    // profiles offered, not a partition of one GPU).
    if (
      pool.sharing.type === 'mig' &&
      pool.sharing.partitioning !== 'dynamic'
    ) {
      const devices = Object.fromEntries(
        Object.entries(pool.sharing.layout)
          .filter(([, count]) => count > 0)
          .sort(([a], [b]) => (a < b ? -1 : 1)),
      );
      const migName =
        pool.nodeLabels[MIG_CONFIG_LABEL] ??
        migLayoutName(
          findGpuModel(platform, pool.gpuModel),
          pool.sharing.layout,
        );
      const devicesText = JSON.stringify(devices);
      const migOwner = migOwners.get(migName);
      if (migOwner && migOwner.text !== devicesText) {
        throw conflict(MIG_CONFIG_LABEL, migName, migOwner.pool, pool);
      }
      migOwners.set(migName, { pool, text: devicesText });
      result.mig = { name: migName, devices };
    }
    return result;
  });
}
