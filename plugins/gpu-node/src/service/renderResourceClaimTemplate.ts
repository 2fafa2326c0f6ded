import type { V1ResourceClaimTemplate } from '@kubernetes/client-node';
import { NVIDIA_DRA_DRIVER } from '@gpu-platform/backstage-plugin-gpu-common';
import { draDeviceClass } from '../kueue/renderDeviceClassMappings';
import { ServiceContext } from './resolveServiceContext';
import { serviceAnnotations } from './serviceAnnotations';
import { serviceObjectNames } from './serviceNames';
import { serviceLabels } from './serviceLabels';

/** Name of the pod's claim and of the claim's single device request. */
export const GPU_CLAIM_NAME = 'gpu';

/** A CEL string literal: single-quoted, with `\` and `'` escaped. */
function celString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * The ResourceClaimTemplate of a service on a DRA pool (undefined on a device-plugin pool): each replica's pod gets
 * its own claim of `exactly` the slice's devices: N whole GPUs of class `gpu.nvidia.com` whose `productName` is the
 * pool's GPU, or one MIG device of class `mig.nvidia.com` of the slice's `profile` on that GPU, as the NVIDIA DRA
 * driver's static MIG example asks; on a dynamic MIG pool the same device of class `DYNAMIC_MIG_DEVICE_CLASS`, which
 * the driver carves on demand and Kueue charges in SMs. One claim per pod, never a claim shared by pods: Kueue refuses
 * those.
 */
export function renderResourceClaimTemplate(
  context: ServiceContext,
): V1ResourceClaimTemplate | undefined {
  const { pool, slice, request, gpuModel } = context;
  if (pool.allocation.backend !== 'dra') return undefined;
  const attribute = (name: string) =>
    `device.attributes['${NVIDIA_DRA_DRIVER}'].${name}`;
  const product = `${attribute('productName')} == ${celString(
    gpuModel.productName,
  )}`;
  const expression = slice.migProfile !== undefined
    ? `${attribute('profile')} == ${celString(slice.migProfile!)} && ${product}`
    : product;
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaimTemplate',
    metadata: {
      name: serviceObjectNames(request.name).resourceClaimTemplate,
      namespace: context.namespace,
      labels: serviceLabels(context),
      annotations: serviceAnnotations(context),
    },
    spec: {
      spec: {
        devices: {
          requests: [
            {
              name: GPU_CLAIM_NAME,
              exactly: {
                deviceClassName: draDeviceClass(pool),
                allocationMode: 'ExactCount',
                count: slice.resourceCount,
                selectors: [{ cel: { expression } }],
              },
            },
          ],
        },
      },
    },
  };
}
