import {
  EnvironmentPolicy,
  Platform,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { ownershipLabels } from '../labels';
import { WorkloadPriorityClass } from './types';

/** Step between the values of consecutive priority classes. */
const PRIORITY_STEP = 100;

function isProduction(environment: EnvironmentPolicy): boolean {
  return /^prod(uction)?$/.test(environment.name);
}

/**
 * Priority value of each environment's WorkloadPriorityClass: environments rank in config order (later is higher),
 * with any environment named `production` or `prod` above all others; the value is 100 x (rank + 1). Environments
 * that share a class give it the highest of their values.
 *
 * @public
 */
export function environmentPriorities(platform: Platform): Map<string, number> {
  const ranked = platform.environments
    .map((environment, index) => ({ environment, index }))
    .sort(
      (a, b) =>
        Number(isProduction(a.environment)) -
          Number(isProduction(b.environment)) || a.index - b.index,
    );
  const values = new Map<string, number>();
  ranked.forEach(({ environment }, rank) => {
    const value = PRIORITY_STEP * (rank + 1);
    const previous = values.get(environment.priorityClass) ?? 0;
    values.set(environment.priorityClass, Math.max(previous, value));
  });
  return values;
}

/** One WorkloadPriorityClass per distinct environment priority class, lowest value first. */
export function renderWorkloadPriorityClasses(
  platform: Platform,
): WorkloadPriorityClass[] {
  const values = environmentPriorities(platform);
  return [...values.entries()]
    .sort(([, a], [, b]) => a - b)
    .map(([name, value]) => {
      const environments = platform.environments
        .filter(e => e.priorityClass === name)
        .map(e => e.name);
      return {
        apiVersion: platform.kueue.apiVersion,
        kind: 'WorkloadPriorityClass',
        metadata: { name, labels: ownershipLabels('platform') },
        value,
        description: `GPU model services in ${environments.join(', ')}`,
      };
    });
}
