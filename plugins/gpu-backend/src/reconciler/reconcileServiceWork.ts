import { NotFoundError } from '@backstage/errors';
import type { ServiceManager } from '../services/ServiceManager';
import type { ServiceStatusRefresher } from '../services/ServiceStatusRefresher';

/**
 * The work queue's work on one service: drive its cluster towards the stored desired state (apply, tear down) and,
 * when there is nothing to apply, read what its cluster says and record it (ready, starting with why), applying again
 * what drifted (a Deployment deleted or scaled by hand). The same whether a write, a watch event or a backoff added it.
 */
export function reconcileServiceWork(deps: {
  services: Pick<ServiceManager, 'reconcile'>;
  statuses: Pick<ServiceStatusRefresher, 'refreshStatus'>;
}): (serviceId: string) => Promise<void> {
  return async serviceId => {
    const inCluster = await deps.services.reconcile(serviceId);
    if (!inCluster) return;
    try {
      const { clusterStatus } = await deps.statuses.refreshStatus(serviceId);
      if (clusterStatus?.error) {
        // The cluster could not be read: the queue tries again with backoff.
        throw new Error(clusterStatus.error);
      }
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
  };
}
