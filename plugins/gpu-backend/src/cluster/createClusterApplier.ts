import type { LoggerService } from '@backstage/backend-plugin-api';
import { ClusterStatusReader } from './ClusterStatusReader';
import { KubernetesApplier } from './KubernetesApplier';
import { KubernetesClientFactory } from './KubernetesClientFactory';
import {
  ClusterApplier,
  ClusterTarget,
  LiveObjects,
  LiveIndexedObjects,
  RetryOptions,
} from './types';

/**
 * The applier of a target in `apply` mode; undefined for `gitops` and `dry-run`
 * targets, whose manifests are only stored (and, for GitOps, handed on).
 */
export function createClusterApplier(options: {
  target: ClusterTarget;
  factory: KubernetesClientFactory;
  retry?: RetryOptions;
  logger?: LoggerService;
}): ClusterApplier | undefined {
  const { target, factory } = options;
  if (target.mode !== 'apply' || !target.connection || !target.name) {
    return undefined;
  }
  return new KubernetesApplier({
    cluster: target.name,
    client: factory.forCluster(target.name, target.connection),
    retry: options.retry,
    logger: options.logger,
  });
}

/**
 * The status reader of a target in `apply` mode, or in `gitops` mode with a (read-only) credential: the reader only
 * reads. Undefined otherwise. Over a client of its own whose requests time out after `requestTimeoutMs`; with the
 * cluster's informers (`live`, `indexed`) when it has them.
 */
export function createClusterStatusReader(options: {
  target: ClusterTarget;
  factory: KubernetesClientFactory;
  kueueApiVersion: string;
  requestTimeoutMs: number;
  live?: LiveObjects;
  indexed?: LiveIndexedObjects;
}): ClusterStatusReader | undefined {
  const { target, factory } = options;
  if (
    (target.mode !== 'apply' && target.mode !== 'gitops') ||
    !target.connection ||
    !target.name
  ) {
    return undefined;
  }
  return new ClusterStatusReader({
    cluster: target.name,
    client: factory.forCluster(target.name, target.connection, {
      requestTimeoutMs: options.requestTimeoutMs,
    }),
    kueueApiVersion: options.kueueApiVersion,
    live: options.live,
    indexed: options.indexed,
  });
}
