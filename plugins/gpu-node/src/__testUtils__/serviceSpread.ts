import type { KubernetesObject } from '@kubernetes/client-node';
import {
  WakeTrigger,
  fitSlices,
  Platform,
  ServiceRequest,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { renderPlatformManifests } from '../renderPlatformManifests';
import { renderServiceManifests } from '../renderServiceManifests';
import { renderTeamManifests } from '../renderTeamManifests';
import { fittingPlacement, placementOf } from './platforms';

const small = {
  model: 'llama-3.2-3b',
  dtype: 'int4',
  maxModelLen: 1024,
  concurrency: 2,
} as const;

const base: ServiceRequest = {
  name: 'chat',
  team: 'ml-platform',
  model: 'llama-3.1-8b',
  runtime: 'vllm',
  maxModelLen: 4096,
  concurrency: 16,
  replicas: 1,
  environment: 'dev',
};

/**
 * What wakes the spread's service that scales to zero: a gateway metric outside its pods.
 *
 * @public
 */
export const SPREAD_WAKE_TRIGGER: WakeTrigger = {
  type: 'prometheus',
  query:
    'sum(gateway_pending_requests{namespace="{{namespace}}",service="{{service}}"})',
};

/**
 * A spread of requests (of the demo platform's `ml-platform` team) over every tier, both runtimes, both autoscalers
 * and production's PodDisruptionBudget, each with the tier (and GPUs per replica) it is placed on.
 */
export const SERVICE_SPREAD: Array<{
  request: ServiceRequest;
  tier: string;
  gpus?: number;
}> = [
  {
    tier: 'dedicated',
    request: {
      ...base,
      name: 'prod-chat',
      environment: 'production',
      replicas: 2,
      autoscaling: {
        minReplicas: 2,
        maxReplicas: 4,
        targetQueueDepth: 4,
        engine: 'hpa',
      },
    },
  },
  {
    tier: 'dedicated',
    gpus: 4,
    request: {
      ...base,
      name: 'big',
      model: 'llama-3.1-70b',
      maxModelLen: 8192,
      autoscaling: {
        minReplicas: 0,
        maxReplicas: 2,
        targetQueueDepth: 8,
        engine: 'keda',
      },
    },
  },
  {
    tier: 'mig',
    request: { ...base, name: 'mig-chat', environment: 'staging', ...small },
  },
  { tier: 'mps', request: { ...base, name: 'mps-chat', ...small } },
  {
    tier: 'time-sliced',
    request: { ...base, name: 'ts-chat', runtime: 'ollama', ...small },
  },
  {
    tier: 'dedicated',
    request: {
      ...base,
      name: 'prod-ollama',
      runtime: 'ollama',
      environment: 'production',
    },
  },
];

/**
 * Everything rendered for a platform that has the `ml-platform` team and a slice of every tier (the demo platform):
 * its platform objects, every team's LocalQueues, and the services of {@link SERVICE_SPREAD}.
 */
export function renderPlatformWithSpread(
  platform: Platform,
): KubernetesObject[] {
  const objects = [
    ...renderPlatformManifests(platform),
    ...platform.teams.flatMap(team => renderTeamManifests(platform, team.name)),
  ];
  for (const { request, tier, gpus } of SERVICE_SPREAD) {
    const placement = fittingPlacement(
      platform,
      request,
      s => s.tier === tier && (gpus === undefined || s.gpusPerReplica === gpus),
    );
    objects.push(
      ...renderServiceManifests(platform, request, placement, {
        serviceId: `id-${request.name}`,
        huggingFaceTokenSecret: { name: 'hf-token', key: 'token' },
        wakeTrigger: SPREAD_WAKE_TRIGGER,
      }),
    );
  }
  return objects;
}

/**
 * The requests of {@link SERVICE_SPREAD} that `platform` can place, moved to its first team and to environments it
 * has (or its first), each on the first fitting slice of its tier: for platforms that lack some tiers or the demo's
 * team.
 */
export function spreadRequestsFor(platform: Platform): Array<{
  request: ServiceRequest;
  placement: ReturnType<typeof placementOf>;
}> {
  const team = platform.teams[0];
  if (!team) return [];
  const environments = platform.environments.map(e => e.name);
  return SERVICE_SPREAD.flatMap(({ request, tier, gpus }) => {
    const moved: ServiceRequest = {
      ...request,
      team: team.name,
      environment: environments.includes(request.environment)
        ? request.environment
        : environments[0],
    };
    const fit = fitSlices(platform, moved).find(
      r =>
        r.fits &&
        r.slice.tier === tier &&
        (gpus === undefined || r.slice.gpusPerReplica === gpus),
    );
    return fit ? [{ request: moved, placement: placementOf(fit.slice) }] : [];
  });
}
