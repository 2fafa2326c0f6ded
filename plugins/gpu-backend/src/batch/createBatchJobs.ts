import { LoggerService } from '@backstage/backend-plugin-api';
import { Platform } from '@gpu-platform/backstage-plugin-gpu-common';
import {
  ClusterApplier,
  ClusterTarget,
  KubernetesClientFactory,
} from '../cluster';
import { GpuStore } from '../database';
import { BatchJobs } from './BatchJobs';

/**
 * The batch jobs of the plugin: applied to their pool's cluster with the applier services are applied with there, read
 * back over a client of that cluster whose requests time out after `requestTimeoutMs` (apply clusters, and `gitops`
 * clusters with a credential, read-only there: their GitOps batch jobs hold their GPUs until read finished).
 */
export function createBatchJobs(options: {
  platform: Platform;
  store: GpuStore;
  target: ClusterTarget;
  factory: KubernetesClientFactory;
  applier?: ClusterApplier;
  /** Every configured cluster with its applier: a Job goes to its pool's cluster. */
  clusters?: ReadonlyMap<
    string,
    { target: ClusterTarget; applier?: ClusterApplier }
  >;
  logger: LoggerService;
  requestTimeoutMs: number;
  /** How long a GitOps batch job's Job may be missing after its submission (see `gitopsBatchGraceMs`). */
  gitopsGraceMs?: number;
}): BatchJobs {
  const { target, factory } = options;
  const clientOf = (of: ClusterTarget) =>
    (of.mode === 'apply' || of.mode === 'gitops') && of.connection && of.name
      ? factory.forCluster(of.name, of.connection, {
          requestTimeoutMs: options.requestTimeoutMs,
        })
      : undefined;
  return new BatchJobs({
    platform: options.platform,
    store: options.store,
    target,
    applier: options.applier,
    client: clientOf(target),
    clusters: new Map(
      [...(options.clusters ?? [])].map(([name, route]) => [
        name,
        { ...route, client: clientOf(route.target) },
      ]),
    ),
    logger: options.logger,
    gitopsGraceMs: options.gitopsGraceMs,
  });
}
