import { EnvironmentPolicy } from './types';

/**
 * The environments a platform has when `gpu.environments` is not configured: `dev` allows every tier, `staging`
 * dedicated, MIG and MPS, `production` dedicated and MIG with a PodDisruptionBudget. A configured environment of
 * the same name takes its unset fields from here.
 *
 * @public
 */
export const defaultEnvironments: EnvironmentPolicy[] = [
  {
    name: 'dev',
    allowedTiers: ['dedicated', 'mig', 'mps', 'time-sliced'],
    maxDedicatedGpus: 2,
    priorityClass: 'gpu-dev',
    podDisruptionBudget: false,
  },
  {
    name: 'staging',
    allowedTiers: ['dedicated', 'mig', 'mps'],
    maxDedicatedGpus: 2,
    priorityClass: 'gpu-staging',
    podDisruptionBudget: false,
  },
  {
    name: 'production',
    allowedTiers: ['dedicated', 'mig'],
    maxDedicatedGpus: 4,
    priorityClass: 'gpu-production',
    podDisruptionBudget: true,
  },
];

/**
 * Kueue settings when `gpu.kueue` is not configured.
 *
 * @public
 */
export const defaultKueueSettings = {
  apiVersion: 'kueue.x-k8s.io/v1beta2',
  cohort: 'gpu',
  migQuota: 'gpu-units',
} as const;
