import { Platform } from '@gpu-platform/backstage-plugin-gpu-common';
import {
  DEVICE_PLUGIN_CONFIG_LABEL,
  MIG_CONFIG_LABEL,
  poolNodeConfigs,
} from './poolNodeConfigs';

/**
 * The labels each pool's nodes need (keyed by pool name, in pool order) so the NVIDIA device plugin and MIG Manager
 * configure them as the pool's sharing setting says: `nvidia.com/device-plugin.config=<config name>` on every pool,
 * and `nvidia.com/mig.config=<layout name>` on MIG pools. Put them in the node group's labels (or label the nodes).
 *
 * @public
 */
export function nodeConfigLabels(
  platform: Platform,
): Record<string, Record<string, string>> {
  const result: Record<string, Record<string, string>> = {};
  for (const { pool, devicePlugin, mig } of poolNodeConfigs(platform)) {
    result[pool.name] = {
      [DEVICE_PLUGIN_CONFIG_LABEL]: devicePlugin.name,
      ...(mig ? { [MIG_CONFIG_LABEL]: mig.name } : {}),
    };
  }
  return result;
}
