import type { KubernetesObject } from '@kubernetes/client-node';
import fc from 'fast-check';
import {
  Placement,
  Platform,
  ServiceRequest,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  PlatformRenderOptions,
  renderPlatformManifests,
} from '../renderPlatformManifests';
import { renderServiceManifests } from '../renderServiceManifests';
import { renderTeamManifests } from '../renderTeamManifests';
import { stableName } from '../names/stableName';
import { ServiceRenderOptions } from '../service/types';
import { simulatedGpuNodes } from '../simulation/simulatedGpuNodes';
import {
  fixedSample,
  platformArbitrary,
  renderableRequest,
  serviceOptionsArbitrary,
} from './arbitraries';
import {
  demoPlatform,
  placementOf,
  seed000Platform,
  servingAndOcrBatchPlatform,
  summariserRequest,
} from './platforms';
import { SPREAD_WAKE_TRIGGER, spreadRequestsFor } from './serviceSpread';

/** What one rendered service exercises. */
export interface RenderedService {
  tier: string;
  runtime: string;
  autoscaler: string;
  environment: string;
}

/** A platform with everything rendered for it. */
export interface RenderedScenario {
  name: string;
  platform: Platform;
  /** Platform, team and service objects. */
  objects: KubernetesObject[];
  /** The platform's simulated GPU nodes (`simulatedGpuNodes`). */
  nodes: KubernetesObject[];
  services: RenderedService[];
}

function withService(
  scenario: RenderedScenario,
  request: ServiceRequest,
  placement: Placement,
  options: ServiceRenderOptions,
) {
  scenario.services.push({
    tier: placement.tier,
    runtime: request.runtime,
    autoscaler: request.autoscaling?.engine ?? 'none',
    environment: request.environment,
  });
  scenario.objects.push(
    ...renderServiceManifests(scenario.platform, request, placement, options),
  );
}

/**
 * Platform and team objects of `platform`, the services of the spread its slices can place, and `randomServices`
 * random valid services (random render options too) from fast-check run `run`.
 */
export function renderScenario(
  name: string,
  platform: Platform,
  randomServices: number,
  run: number,
  prefix?: string,
): RenderedScenario {
  const platformOptions: PlatformRenderOptions =
    prefix === undefined
      ? {}
      : { gpuOperatorNamespace: stableName([prefix, 'gpu-operator']) };
  const scenario: RenderedScenario = {
    name,
    platform,
    objects: [
      ...renderPlatformManifests(platform, platformOptions),
      ...platform.teams.flatMap(team =>
        renderTeamManifests(platform, team.name),
      ),
    ],
    nodes: simulatedGpuNodes(
      platform,
      prefix === undefined ? {} : { namePrefix: `${prefix}-` },
    ),
    services: [],
  };
  for (const { request, placement } of spreadRequestsFor(platform)) {
    withService(scenario, request, placement, {
      serviceId: `spread-${request.name}`,
      huggingFaceTokenSecret: { name: 'hf-token', key: 'token' },
      wakeTrigger: SPREAD_WAKE_TRIGGER,
    });
  }
  fixedSample(
    fc.tuple(renderableRequest(platform), serviceOptionsArbitrary),
    10 * randomServices,
    run,
  )
    .filter(([candidate]) => candidate !== undefined)
    .slice(0, randomServices)
    .forEach(([candidate, options], i) => {
      const { request, fit } = candidate!;
      withService(
        scenario,
        { ...request, name: `${request.name.slice(0, 37)}-${i}` },
        placementOf(fit.slice),
        options,
      );
    });
  return scenario;
}

/**
 * The platform with every team namespace `n` renamed `<prefix>-<n>` (hashed down to a DNS-1123 label when longer), so
 * a suite on a shared cluster has namespaces of its own.
 */
export function withNamespacePrefix(
  platform: Platform,
  prefix: string,
): Platform {
  return {
    ...platform,
    teams: platform.teams.map(team => ({
      ...team,
      namespaces: team.namespaces.map(n => stableName([prefix, n])),
    })),
  };
}

function describePlatform(platform: Platform): string {
  const pools = platform.pools.map(p => {
    const sharing = p.sharing;
    let detail = '';
    if (sharing.type === 'mig') {
      detail = ` ${Object.entries(sharing.layout)
        .map(([profile, count]) => `${count}x${profile}`)
        .join('+')}`;
    } else if (sharing.type !== 'none') {
      detail = ` x${sharing.replicas}${p.renameByDefault ? ' renamed' : ''}`;
    }
    return `${p.gpuModel} ${sharing.type}${detail}`;
  });
  return `${pools.join(', ')}; ${platform.teams.length} team(s), ${
    platform.kueue.apiVersion.split('/')[1]
  }`;
}

/**
 * The fixture platforms of `platforms.ts` and `generatedPlatforms` platforms of {@link platformArbitrary} (fast-check
 * run `run`), each with its platform and team objects, the spread of services it can place and a few random ones.
 */
export function renderedScenarios(
  options: {
    generatedPlatforms?: number;
    randomServices?: number;
    run?: number;
    /**
     * Prefix of every namespace (team namespaces, see {@link withNamespacePrefix}, and the GPU Operator's) and of the
     * simulated node names, so that a suite on a shared cluster has names of its own.
     */
    prefix?: string;
  } = {},
): RenderedScenario[] {
  const {
    generatedPlatforms = 20,
    randomServices = 3,
    run = 20261201,
    prefix,
  } = options;
  const prepare = (platform: Platform) =>
    prefix === undefined ? platform : withNamespacePrefix(platform, prefix);
  const onDemandAndSpot = prepare(servingAndOcrBatchPlatform());
  const fixtures = [
    renderScenario(
      'the demo platform (Kueue v1beta2)',
      prepare(demoPlatform()),
      6,
      run,
      prefix,
    ),
    renderScenario(
      'the demo platform (Kueue v1beta1)',
      prepare(demoPlatform('kueue.x-k8s.io/v1beta1')),
      6,
      run + 1,
      prefix,
    ),
    renderScenario(
      'one shared T4 box, time-sliced and MPS',
      prepare(seed000Platform()),
      4,
      run + 2,
      prefix,
    ),
    renderScenario(
      'on-demand and spot L4s with the summariser',
      onDemandAndSpot,
      4,
      run + 3,
      prefix,
    ),
  ];
  // The spread's service that scales to zero, woken by KEDA's HTTP add-on instead (an HTTPScaledObject).
  for (const { request, placement } of spreadRequestsFor(
    fixtures[0].platform,
  )) {
    if (request.autoscaling?.minReplicas === 0) {
      withService(
        fixtures[0],
        { ...request, name: `${request.name}-http` },
        placement,
        {
          serviceId: `spread-${request.name}-http`,
          wakeTrigger: { type: 'http-add-on', scaledownPeriodSeconds: 300 },
        },
      );
    }
  }
  withService(
    fixtures[3],
    summariserRequest,
    { tier: 'dedicated', pool: 'l4-ondemand', gpusPerReplica: 1 },
    { serviceId: 'summariser-1' },
  );
  const generated = fixedSample(platformArbitrary(), generatedPlatforms, run)
    .map(prepare)
    .map((platform, i) =>
      renderScenario(
        `generated platform ${i}: ${describePlatform(platform)}`,
        platform,
        randomServices,
        run + 100 + i,
        prefix,
      ),
    );
  return [...fixtures, ...generated];
}
