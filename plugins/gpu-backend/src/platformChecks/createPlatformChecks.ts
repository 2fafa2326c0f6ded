import {
  checkPlatformConfig,
  Platform,
  PlatformOperations,
  ServiceDefaults,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { ClusterTarget, KubernetesClientFactory } from '../cluster';
import { GpuStore } from '../database';
import { LiveClusterCheck } from './LiveClusterCheck';
import { PlatformChecks } from './PlatformChecks';

/**
 * The platform checks of the parsed config and the configured clusters: a live check, over a client whose requests
 * time out after `requestTimeoutMs`, for each `apply` cluster.
 */
export function createPlatformChecks(options: {
  platform: Platform;
  operations: PlatformOperations;
  serviceDefaults: ServiceDefaults;
  clusters: ClusterTarget[];
  factory: KubernetesClientFactory;
  store: GpuStore;
  requestTimeoutMs: number;
}): PlatformChecks {
  const { platform, factory } = options;
  return new PlatformChecks({
    configFindings: checkPlatformConfig(options),
    clusters: options.clusters,
    live: options.clusters.flatMap(target =>
      target.mode === 'apply' && target.name && target.connection
        ? [
            new LiveClusterCheck({
              cluster: target.name,
              client: factory.forCluster(target.name, target.connection, {
                requestTimeoutMs: options.requestTimeoutMs,
              }),
              // The cluster's own pools only: on a fleet, another cluster's pools are not expected here.
              platform: {
                ...platform,
                pools: platform.pools.filter(
                  p => p.cluster === undefined || p.cluster === target.name,
                ),
              },
              serviceDefaults: options.serviceDefaults,
            }),
          ]
        : [],
    ),
    store: options.store,
  });
}
