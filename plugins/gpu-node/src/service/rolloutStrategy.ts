import type { V1DeploymentStrategy } from '@kubernetes/client-node';
import { ServiceContext } from './resolveServiceContext';

/**
 * Annotation of a Deployment that rolls out without the surge its environment asks for, saying why.
 *
 * @public
 */
export const ROLLOUT_ANNOTATION = 'gpu.backstage.io/rollout';

/**
 * The rollout of a service's Deployment. Where the environment asks for zero-downtime rollouts
 * (`zeroDowntimeRollouts`), a surge pod starts before an old one stops (`maxSurge: 1, maxUnavailable: 0`): the surge
 * pod is a Kueue workload that needs one more replica's GPU share of the team's quota while the rollout runs. When
 * quota cannot hold it (`options.surge.fits` false) a surge pod would wait for quota and the rollout would hang, so
 * the rollout replaces one pod at a time instead (`maxSurge: 0, maxUnavailable: 1`) and says so in the
 * {@link ROLLOUT_ANNOTATION} annotation. Elsewhere: one pod at a time, never beyond the service's own quota.
 */
export function rolloutStrategy(context: ServiceContext): {
  strategy: V1DeploymentStrategy;
  note?: string;
} {
  const { options } = context;
  const noSurge: V1DeploymentStrategy = {
    type: 'RollingUpdate',
    rollingUpdate: { maxSurge: 0, maxUnavailable: 1 },
  };
  if (!options.zeroDowntimeRollouts) {
    return { strategy: noSurge };
  }
  if (options.surge && !options.surge.fits) {
    return {
      strategy: noSurge,
      note: `no surge: ${
        options.surge.reason ??
        "the team's quota cannot hold one more replica during a rollout"
      }; pods are replaced one at a time`,
    };
  }
  return {
    strategy: {
      type: 'RollingUpdate',
      rollingUpdate: { maxSurge: 1, maxUnavailable: 0 },
    },
  };
}
