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
 * The name of the claim the service's pods mount as their model cache: the existing shared claim it is given, else
 * its own, named for its access mode (see {@link renderModelCacheClaim}).
 */
export function modelCacheClaimName(context: ServiceContext): string {
  const names = serviceObjectNames(context.request.name);
  return (
    context.options.modelCache?.existingClaim ??
    (context.maxReplicas > 1 ? names.sharedModelCache : names.modelCache)
  );
}

/**
 * The model-cache claim, or undefined when the service mounts an existing shared claim. `ReadWriteOnce` while at
 * most one replica runs; `ReadWriteMany` when more may run at once (they share the cache; the storage class must
 * support it). The two have different names: the API server refuses to change a claim's access modes, so a change
 * across one replica creates the other claim and the one left behind is pruned (apply mode) or removed from the
 * repository (GitOps).
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
      name: modelCacheClaimName(context),
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
