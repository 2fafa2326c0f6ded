import type { V1ConfigMap } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { ownershipLabels } from '../labels';
import { PoolNodeConfig } from './poolNodeConfigs';

/**
 * The MIG Manager ConfigMap (mig-parted `version: v1` under key `config.yaml`) with `all-disabled` and every MIG
 * layout the pools use, under the names their nodes select. A custom MIG config replaces NVIDIA's default one, so it
 * holds every layout a node may select. Undefined when no pool uses MIG.
 */
export function renderMigConfigMap(
  configs: PoolNodeConfig[],
  name: string,
  namespace: string,
): V1ConfigMap | undefined {
  const layouts = new Map<string, Record<string, number>>();
  for (const { mig } of configs) {
    if (mig) layouts.set(mig.name, mig.devices);
  }
  if (layouts.size === 0) {
    return undefined;
  }
  const migConfigs: Record<string, unknown> = {
    'all-disabled': [{ devices: 'all', 'mig-enabled': false }],
  };
  for (const [layoutName, devices] of [...layouts].sort(([a], [b]) =>
    a < b ? -1 : 1,
  )) {
    migConfigs[layoutName] = [
      { devices: 'all', 'mig-enabled': true, 'mig-devices': devices },
    ];
  }
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, labels: ownershipLabels('platform') },
    data: {
      'config.yaml': stringify({ version: 'v1', 'mig-configs': migConfigs }),
    },
  };
}
