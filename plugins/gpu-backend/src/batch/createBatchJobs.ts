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
 * The batch jobs of the plugin: applied with the applier services are applied with, read back over a client of the
 * same target whose requests time out after `requestTimeoutMs` (apply mode only).
 */
export function createBatchJobs(options: {
  platform: Platform;
  store: GpuStore;
  target: ClusterTarget;
  factory: KubernetesClientFactory;
  applier?: ClusterApplier;
  logger: LoggerService;
  requestTimeoutMs: number;
}): BatchJobs {
  const { target, factory } = options;
  const client =
    target.mode === 'apply' && target.connection && target.name
      ? factory.forCluster(target.name, target.connection, {
          requestTimeoutMs: options.requestTimeoutMs,
        })
      : undefined;
  return new BatchJobs({
    platform: options.platform,
    store: options.store,
    target,
    applier: options.applier,
    client,
    logger: options.logger,
  });
}
