import type { ServiceClusterStatus } from '@gpu-platform/backstage-plugin-gpu-common';
import type { RunObservation } from '../database/runPeriods';
import { describeNotAvailable } from './statusTransition';

/**
 * Whether the service's workload runs, from what its cluster says: it runs while its Deployment has at least one
 * available replica (admitted by Kueue, scheduled, ready for `minReadySeconds`); it does not while the Deployment is
 * missing, or has no available replica (Kueue pending or evicted, pods failing or unschedulable). Undefined when the
 * cluster could not be read: nothing is known.
 *
 * A run starts at the Deployment's `Available` transition when that is known and plausible (not before `notBefore`,
 * the service's last stored change, and not after the read), else at the read; a run stops at the read.
 */
export function observeRun(
  observed: ServiceClusterStatus,
  notBefore: string,
): RunObservation | undefined {
  const { deployment } = observed;
  if (observed.error || !deployment) return undefined;
  const readAt = Date.parse(observed.observedAt);
  if (!deployment.exists || deployment.availableReplicas === 0) {
    return {
      running: false,
      since: new Date(readAt),
      reason: describeNotAvailable(observed).message,
    };
  }
  const available = deployment.conditions.find(
    c => c.type === 'Available' && c.status === 'True',
  );
  const transition = available?.lastTransitionTime
    ? Date.parse(available.lastTransitionTime)
    : NaN;
  if (transition >= Date.parse(notBefore) && transition <= readAt) {
    return {
      running: true,
      since: new Date(transition),
      basis: 'deployment-available',
    };
  }
  return { running: true, since: new Date(readAt), basis: 'observed' };
}
