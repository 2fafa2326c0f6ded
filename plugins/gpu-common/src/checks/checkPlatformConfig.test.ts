import { PlatformFinding } from '../api/platformChecks';
import { parsePlatformOperations } from '../operations/parsePlatformOperations';
import { demoPlatformConfig } from '../platform/demoPlatformConfig';
import { parsePlatform } from '../platform/parsePlatform';
import { parseServiceDefaults } from '../serviceDefaults/parseServiceDefaults';
import { checkPlatformConfig } from './checkPlatformConfig';

const taint = {
  key: 'nvidia.com/gpu',
  value: 'present',
  effect: 'NoSchedule',
} as const;

/**
 * A platform without any of the mistakes: production on a tainted on-demand dedicated pool of its own, dev on a
 * tainted spot time-sliced pool, a shared weights cache, Karpenter consolidating after 5 minutes.
 */
const cleanConfig = {
  pools: [
    {
      name: 'prod-l4',
      gpuModel: 'L4',
      gpusPerNode: 1,
      maxNodes: 4,
      capacityType: 'on-demand',
      pricePerNodeHour: '0.8048',
      nodeLabels: { 'gpu.example.com/pool': 'prod-l4' },
      nodeTaints: [taint],
    },
    {
      name: 'dev-l4',
      gpuModel: 'L4',
      gpusPerNode: 1,
      maxNodes: 4,
      capacityType: 'spot',
      pricePerNodeHour: '0.35',
      nodeLabels: { 'gpu.example.com/pool': 'dev-l4' },
      nodeTaints: [taint],
      sharing: { type: 'time-slicing', replicas: 4 },
    },
  ],
  environments: [
    { name: 'dev', allowedTiers: ['time-sliced'] },
    { name: 'production', allowedTiers: ['dedicated'] },
  ],
  teams: [
    {
      name: 'ml-platform',
      gpuQuota: { 'prod-l4': 2, 'dev-l4': 2 },
      monthlyBudget: '5000',
    },
  ],
  serviceDefaults: { modelCache: { existingClaim: 'hf-weights' } },
  karpenter: { consolidateAfter: '5m' },
};

type RawConfig = Record<string, any>;

function findingsOf(raw: RawConfig): PlatformFinding[] {
  const platform = parsePlatform(raw);
  return checkPlatformConfig({
    platform,
    operations: parsePlatformOperations(raw, platform),
    serviceDefaults: parseServiceDefaults(raw.serviceDefaults, platform),
  });
}

function withPool(index: number, change: RawConfig): RawConfig {
  return {
    ...cleanConfig,
    pools: cleanConfig.pools.map((p, i) =>
      i === index ? { ...p, ...change } : p,
    ),
  };
}

const ids = (findings: PlatformFinding[]) => findings.map(f => f.id);

describe('checkPlatformConfig', () => {
  it('finds nothing in a config without the common mistakes', () => {
    expect(findingsOf(cleanConfig)).toEqual([]);
  });

  it('finds a GPU pool without a NoSchedule taint, and takes NoExecute as one', () => {
    const findings = findingsOf(
      withPool(1, {
        nodeTaints: [{ ...taint, effect: 'PreferNoSchedule' }],
      }),
    );
    expect(findings).toEqual([
      expect.objectContaining({
        id: 'gpu-nodes-untainted',
        severity: 'warning',
        source: 'config',
        where: 'gpu.pools[1].nodeTaints',
        message: expect.stringContaining('dev-l4 has no NoSchedule taint'),
        fix: expect.stringContaining('effect: NoSchedule'),
      }),
    ]);
    expect(
      findingsOf(
        withPool(1, { nodeTaints: [{ ...taint, effect: 'NoExecute' }] }),
      ),
    ).toEqual([]);
  });

  it('finds a pool whose tier both production and dev allow', () => {
    const findings = findingsOf({
      ...cleanConfig,
      environments: [
        { name: 'dev', allowedTiers: ['time-sliced', 'dedicated'] },
        { name: 'production', allowedTiers: ['dedicated'] },
      ],
    });
    expect(findings).toEqual([
      expect.objectContaining({
        id: 'pool-shared-dev-production',
        severity: 'warning',
        where: 'gpu.pools[0]',
        message: expect.stringContaining(
          'prod-l4 (dedicated) serves production and dev',
        ),
      }),
    ]);
  });

  it('finds a spot pool production may be placed on', () => {
    const findings = findingsOf(withPool(0, { capacityType: 'spot' }));
    expect(findings).toEqual([
      expect.objectContaining({
        id: 'production-on-spot',
        severity: 'error',
        where: 'gpu.pools[0].capacityType',
        message: expect.stringContaining('Spot pool prod-l4'),
      }),
    ]);
  });

  it('finds no shared weights cache unless every pool has one, by default or by its override', () => {
    const without = { ...cleanConfig, serviceDefaults: {} };
    expect(findingsOf(without)).toEqual([
      expect.objectContaining({
        id: 'no-shared-weights-cache',
        severity: 'warning',
        where: 'gpu.serviceDefaults.modelCache.existingClaim',
        message: expect.stringContaining('pools prod-l4, dev-l4'),
      }),
    ]);
    const onePool = {
      ...cleanConfig,
      serviceDefaults: {
        byPool: { 'prod-l4': { modelCache: { existingClaim: 'weights' } } },
      },
    };
    expect(findingsOf(onePool)).toEqual([
      expect.objectContaining({
        id: 'no-shared-weights-cache',
        message: expect.stringContaining('for pool dev-l4:'),
      }),
    ]);
    const everyPool = {
      ...cleanConfig,
      serviceDefaults: {
        byPool: {
          'prod-l4': { modelCache: { existingClaim: 'weights' } },
          'dev-l4': { modelCache: { existingClaim: 'weights' } },
        },
      },
    };
    expect(findingsOf(everyPool)).toEqual([]);
  });

  it('finds a wake query on CPU use, in the defaults or an override, and not one on a gateway metric', () => {
    const cpuQuery =
      'sum(rate(container_cpu_usage_seconds_total{namespace="{{namespace}}",pod=~"{{service}}-.*"}[1m]))';
    const findings = findingsOf({
      ...cleanConfig,
      serviceDefaults: {
        ...cleanConfig.serviceDefaults,
        byEnvironment: { dev: { scaleToZero: { wakeQuery: cpuQuery } } },
      },
    });
    expect(findings).toEqual([
      expect.objectContaining({
        id: 'cpu-autoscaling-on-gpu',
        severity: 'error',
        where: 'gpu.serviceDefaults.byEnvironment.dev.scaleToZero.wakeQuery',
      }),
    ]);
    const gateway = findingsOf({
      ...cleanConfig,
      serviceDefaults: {
        ...cleanConfig.serviceDefaults,
        scaleToZero: {
          wakeQuery:
            'sum(rate(gateway_requests_total{service="{{service}}"}[1m]))',
        },
      },
    });
    expect(gateway).toEqual([]);
  });

  it('finds a Karpenter NodePool that never consolidates, and none when Karpenter is off', () => {
    const never = { ...cleanConfig, karpenter: { consolidateAfter: 'Never' } };
    expect(findingsOf(never)).toEqual([
      expect.objectContaining({
        id: 'karpenter-no-consolidate-after',
        where: 'gpu.pools[0].karpenter.consolidateAfter',
      }),
      expect.objectContaining({
        id: 'karpenter-no-consolidate-after',
        where: 'gpu.pools[1].karpenter.consolidateAfter',
      }),
    ]);
    const onePool = withPool(1, { karpenter: { consolidateAfter: 'Never' } });
    expect(ids(findingsOf(onePool))).toEqual([
      'karpenter-no-consolidate-after',
    ]);
    expect(
      findingsOf({
        ...never,
        karpenter: { enabled: false, consolidateAfter: 'Never' },
      }),
    ).toEqual([]);
  });

  it('finds the demo platform mistakes: production allowed on the spot pool and on pools dev shares', () => {
    const findings = findingsOf(demoPlatformConfig);
    expect(findings).toContainEqual(
      expect.objectContaining({
        id: 'production-on-spot',
        where: 'gpu.pools[1].capacityType',
      }),
    );
    expect(new Set(ids(findings))).toEqual(
      new Set([
        'pool-shared-dev-production',
        'production-on-spot',
        'no-shared-weights-cache',
      ]),
    );
  });
});
