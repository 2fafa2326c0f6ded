import type { LoggerService } from '@backstage/backend-plugin-api';
import {
  ClusterTarget,
  createClusterApplier,
  KubernetesClientFactory,
} from '../cluster';
import { ReconciledCluster } from './PlatformReconciler';

/** Every configured cluster with, in apply mode, an applier of its own. */
export function reconciledClusters(
  targets: ClusterTarget[],
  logger: LoggerService,
): ReconciledCluster[] {
  const factory = new KubernetesClientFactory();
  return targets
    .filter((t): t is ClusterTarget & { name: string } => Boolean(t.name))
    .map(target => ({
      target,
      applier: createClusterApplier({ target, factory, logger }),
    }));
}
