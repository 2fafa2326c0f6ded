import type { LoggerService } from '@backstage/backend-plugin-api';
import type { ServiceStatus } from '@gpu-platform/backstage-plugin-gpu-common';
import type { GpuStore } from '../database';

/** Statuses of services still on their way: what a cluster coming back lets go on. */
const UNSETTLED: ServiceStatus[] = ['applying', 'deleting', 'starting'];

/**
 * Adds every service of `cluster` in apply mode that is still on its way (`applying`, `deleting`, `starting`) to the
 * work queue: called when the cluster is reachable again, so applies and teardowns waiting out their backoff, and
 * statuses that could not be read, go on at once. Never rejects.
 */
export async function requeueUnsettledServices(options: {
  store: Pick<GpuStore, 'listServices'>;
  enqueue: (serviceId: string) => void;
  cluster: string;
  logger: LoggerService;
}): Promise<void> {
  const { store, enqueue, cluster, logger } = options;
  try {
    const services = await store.listServices({ status: UNSETTLED });
    const mine = services.filter(
      s => s.mode === 'apply' && (s.cluster ?? cluster) === cluster,
    );
    for (const service of mine) enqueue(service.id);
    if (mine.length > 0) {
      logger.info(
        'Requeued the GPU services on their way after the cluster came back',
        {
          cluster,
          services: mine.length,
        },
      );
    }
  } catch (error) {
    logger.warn(
      'Could not requeue the GPU services of a cluster that came back',
      {
        cluster,
        error: String(error),
      },
    );
  }
}
