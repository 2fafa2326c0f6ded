import type { V1ConfigMap } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { ownershipLabels } from '../labels';
import { PoolNodeConfig } from './poolNodeConfigs';

/**
 * The device-plugin ConfigMap: a `default` config (whole GPUs, no MIG) plus one named config per distinct sharing
 * setting of the pools. Point the GPU Operator's ClusterPolicy `spec.devicePlugin.config` at it with
 * `default: default`.
 */
export function renderDevicePluginConfigMap(
  configs: PoolNodeConfig[],
  name: string,
  namespace: string,
): V1ConfigMap {
  const data: Record<string, string> = {
    default: stringify({ version: 'v1', flags: { migStrategy: 'none' } }),
  };
  for (const { devicePlugin } of configs) {
    data[devicePlugin.name] = stringify(devicePlugin.config);
  }
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, labels: ownershipLabels('platform') },
    data,
  };
}
