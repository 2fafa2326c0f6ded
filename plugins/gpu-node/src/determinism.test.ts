import type { V1Deployment } from '@kubernetes/client-node';
import fc from 'fast-check';
import {
  demoPlatformConfig,
  isDns1123Label,
  isLabelKey,
  isLabelValue,
  parsePlatformOperations,
  Platform,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  hostMemoryGiBPerGpuUnit,
  HOST_CPU_PER_GPU_UNIT,
} from './hostResources';
import { poolResources } from './kueue/poolResources';
import { renderPlatformManifests } from './renderPlatformManifests';
import { renderServiceManifests } from './renderServiceManifests';
import { renderTeamManifests } from './renderTeamManifests';
import { sortForApply } from './sortForApply';
import { toYaml } from './toYaml';
import { renderableRequest } from './__testUtils__/arbitraries';
import { demoPlatform, placementOf } from './__testUtils__/platforms';
import { SPREAD_WAKE_TRIGGER } from './__testUtils__/serviceSpread';

const platform: Platform = demoPlatform();
const renderable = renderableRequest(platform);

describe('determinism and names', () => {
  it('renders the platform (with its NodePools) and teams identically twice', () => {
    const operations = parsePlatformOperations(demoPlatformConfig, platform);
    const first = [
      ...renderPlatformManifests(platform, { operations }),
      ...platform.teams.flatMap(t => renderTeamManifests(platform, t.name)),
    ];
    const second = [
      ...renderPlatformManifests(demoPlatform(), {
        operations: parsePlatformOperations(demoPlatformConfig, demoPlatform()),
      }),
      ...platform.teams.flatMap(t =>
        renderTeamManifests(demoPlatform(), t.name),
      ),
    ];
    expect(second).toEqual(first);
    expect(toYaml(second)).toBe(toYaml(first));
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
  });

  it('renders any valid request identically twice, with valid names and labels, in apply order', () => {
    fc.assert(
      fc.property(renderable, candidate => {
        fc.pre(candidate !== undefined);
        const { request, fit } = candidate!;
        const placement = placementOf(fit.slice);
        const options = {
          serviceId: `id-${request.name}`,
          wakeTrigger: SPREAD_WAKE_TRIGGER,
          zeroDowntimeRollouts: true,
          podMonitor: { enabled: true, labels: { release: 'prometheus' } },
        };
        const first = renderServiceManifests(
          platform,
          request,
          placement,
          options,
        );
        const second = renderServiceManifests(
          platform,
          structuredClone(request),
          { ...placement },
          { ...options },
        );
        expect(second).toEqual(first);
        expect(JSON.stringify(second)).toBe(JSON.stringify(first));
        expect(toYaml(second)).toBe(toYaml(first));
        expect(sortForApply(first)).toEqual(first);
        for (const object of first) {
          expect(isDns1123Label(object.metadata!.name!)).toBe(true);
          expect(isDns1123Label(object.metadata!.namespace!)).toBe(true);
          for (const [key, value] of Object.entries(object.metadata!.labels!)) {
            expect(isLabelKey(key) && isLabelValue(value)).toBe(true);
          }
        }
      }),
      { numRuns: 100 },
    );
  });

  it('never lets a pod ask for more host CPU or memory than its GPU units bring to the team quota', () => {
    fc.assert(
      fc.property(renderable, candidate => {
        fc.pre(candidate !== undefined);
        const { request, fit } = candidate!;
        const slice = fit.slice;
        const objects = renderServiceManifests(
          platform,
          request,
          placementOf(slice),
          { serviceId: 'x', wakeTrigger: SPREAD_WAKE_TRIGGER },
        );
        const deployment = objects.find(
          o => o.kind === 'Deployment',
        ) as V1Deployment;
        const requests =
          deployment.spec!.template.spec!.containers[0].resources!.requests!;
        const pool = platform.pools.find(p => p.name === slice.pool)!;
        const unit = poolResources(platform, pool).find(
          r => r.name === slice.resourceName,
        )!;
        expect(Number(requests[slice.resourceName])).toBe(slice.resourceCount);
        expect(Number(requests.cpu)).toBeLessThanOrEqual(
          slice.resourceCount * HOST_CPU_PER_GPU_UNIT,
        );
        expect(parseInt(requests.memory, 10)).toBeLessThanOrEqual(
          slice.resourceCount * hostMemoryGiBPerGpuUnit(unit.memoryGiB),
        );
      }),
      { numRuns: 100 },
    );
  });

  it('keeps names of long team names within 63 characters', () => {
    const longTeam = `t${'e'.repeat(61)}m`;
    const custom = demoPlatform();
    custom.teams.push({
      name: longTeam,
      namespaces: ['long'],
      gpuQuota: { h100: 1 },
      monthlyBudget: '1',
    });
    const names = [
      ...renderPlatformManifests(custom),
      ...renderTeamManifests(custom, longTeam),
    ].map(o => o.metadata!.name!);
    expect(names.every(name => isDns1123Label(name))).toBe(true);
    expect(names.filter(name => name.startsWith('gpu-teee'))).toHaveLength(2);
  });
});
