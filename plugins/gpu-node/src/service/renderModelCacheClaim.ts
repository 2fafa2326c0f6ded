import type { V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { ServiceContext } from './resolveServiceContext';
import { serviceAnnotations } from './serviceAnnotations';
import { serviceObjectNames } from './serviceNames';
import { serviceLabels } from './serviceLabels';

const GIB = 2 ** 30;

/**
 * Size of a model cache: the weights x 1.5 (download staging, tokenizer, revisions), in whole GiB.
 *
 * @public
 */
export function modelCacheSizeGiB(weightsBytes: number): number {
  return Math.max(1, Math.ceil((weightsBytes * 1.5) / GIB));
}

/**
 * The model-cache claim, or undefined when the service mounts an existing shared claim. `ReadWriteOnce` while at
 * most one replica runs; `ReadWriteMany` when more may run at once (they share the cache; the storage class must
 * support it).
 */
export function renderModelCacheClaim(
  context: ServiceContext,
): V1PersistentVolumeClaim | undefined {
  const cache = context.options.modelCache;
  if (cache?.existingClaim) {
    return undefined;
  }
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: serviceObjectNames(context.request.name).modelCache,
      namespace: context.namespace,
      labels: serviceLabels(context),
      annotations: serviceAnnotations(context),
    },
    spec: {
      accessModes: [
        context.maxReplicas > 1 ? 'ReadWriteMany' : 'ReadWriteOnce',
      ],
      storageClassName: cache?.storageClassName,
      resources: {
        requests: { storage: `${modelCacheSizeGiB(context.weightsBytes)}Gi` },
      },
    },
  };
}
