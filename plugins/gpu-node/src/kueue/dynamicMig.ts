import type { KubernetesObject } from '@kubernetes/client-node';
import {
  DYNAMIC_MIG_DEVICE_CLASS,
  DYNAMIC_MIG_RESOURCE,
  NVIDIA_DRA_DRIVER,
} from '@gpu-platform/backstage-plugin-gpu-common';
import type { KueueDeviceClassMapping } from './renderDeviceClassMappings';

// Defined in gpu-common (the quote and the ledger name them too); kept exported here, where the cluster side uses them.
export { DYNAMIC_MIG_DEVICE_CLASS, DYNAMIC_MIG_RESOURCE };

/**
 * The counter of the driver's dynamic MIG devices Kueue charges: `multiprocessors`, the SMs a MIG device consumes of
 * its GPU's counter set (`cmd/gpu-kubelet-plugin/partitions.go`: every MIG capacity is also a counter,
 * `capacitiesToCounters`; the GPU's set holds the most of every profile, 98 on an A100-80GB).
 *
 * @public
 */
export const DYNAMIC_MIG_COUNTER = 'multiprocessors';

/**
 * The `deviceClassMappings` entry for dynamic MIG: `DYNAMIC_MIG_DEVICE_CLASS` charged through the driver's
 * `multiprocessors` counter (Kueue v0.19 `sources[].counter`, gate `KueueDRAIntegrationPartitionableDevices`, beta and
 * on by default since v0.19). Kueue charges a request the largest value of the counter among the devices its class
 * and selectors match, times its count (`computeCounterCharges`), so a `1g.10gb` request is 14 SMs, a `3g.40gb` 42.
 *
 * @public
 */
export const DYNAMIC_MIG_DEVICE_CLASS_MAPPING: KueueDeviceClassMapping = {
  name: DYNAMIC_MIG_RESOURCE,
  deviceClassNames: [DYNAMIC_MIG_DEVICE_CLASS],
  sources: [
    {
      counter: {
        name: DYNAMIC_MIG_COUNTER,
        driver: NVIDIA_DRA_DRIVER,
        deviceSelector: {
          cel: {
            expression: `device.attributes['${NVIDIA_DRA_DRIVER}'].type == 'mig'`,
          },
        },
      },
    },
  ],
};

/**
 * The DeviceClass `DYNAMIC_MIG_DEVICE_CLASS`: MIG devices of the NVIDIA DRA driver (the selector of the chart's
 * `mig.nvidia.com`). The platform team creates it; the driver's chart does not.
 *
 * @public
 */
export function dynamicMigDeviceClass(): KubernetesObject {
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'DeviceClass',
    metadata: { name: DYNAMIC_MIG_DEVICE_CLASS },
    spec: {
      selectors: [
        {
          cel: {
            expression: `device.driver == '${NVIDIA_DRA_DRIVER}' && device.attributes['${NVIDIA_DRA_DRIVER}'].type == 'mig'`,
          },
        },
      ],
    },
  } as KubernetesObject;
}
