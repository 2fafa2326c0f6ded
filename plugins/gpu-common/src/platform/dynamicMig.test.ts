import { poolCapacity } from '../quote/governance';
import { DYNAMIC_MIG_RESOURCE } from '../tiers/draDeviceClasses';
import { dynamicMigSliceWeights } from '../tiers/migSliceWeights';
import { slicesFor } from '../tiers/slicesFor';
import { demoPlatformConfig } from './demoPlatformConfig';
import { parsePlatform } from './parsePlatform';
import { PlatformConfig } from './platformConfigSchema';

type RawPool = NonNullable<PlatformConfig['pools']>[number];

/** The demo platform with its a100-mig pool changed by `change`. */
function withMigPool(change: Partial<RawPool>): PlatformConfig {
  const config = JSON.parse(JSON.stringify(demoPlatformConfig));
  config.pools = config.pools.map((pool: RawPool) =>
    pool.name === 'a100-mig' ? { ...pool, ...change } : pool,
  );
  return config;
}

const DYNAMIC: Partial<RawPool> = {
  allocation: 'dra',
  sharing: {
    type: 'mig',
    partitioning: 'dynamic',
    layout: { '1g.10gb': 7, '2g.20gb': 3, '3g.40gb': 2 },
  },
};

describe('dynamic MIG pools', () => {
  it('weigh each slice its SMs out of the GPU’s 98, charged in SMs, and say which profiles are carved on demand', () => {
    const platform = parsePlatform(withMigPool(DYNAMIC));
    const slices = slicesFor(platform, 'a100-mig');
    expect(slices.map(s => [s.migProfile, s.gpuUnits, s.resourceName])).toEqual(
      [
        ['1g.10gb', 720, DYNAMIC_MIG_RESOURCE], // 14 of 98 SMs
        ['2g.20gb', 1440, DYNAMIC_MIG_RESOURCE], // 28
        ['3g.40gb', 2160, DYNAMIC_MIG_RESOURCE], // 42
      ],
    );
    expect(slices[0].allocation).toEqual({
      backend: 'dra',
      requested: 'dra',
      dynamicMig: {
        profiles: ['1g.10gb', '2g.20gb', '3g.40gb'],
        multiprocessorsPerGpu: 98,
        multiprocessorsByProfile: {
          '1g.10gb': 14,
          '2g.20gb': 28,
          '3g.40gb': 42,
        },
        message: expect.stringContaining(
          'the NVIDIA DRA driver carves 1g.10gb (14 SMs), 2g.20gb (28 SMs), 3g.40gb (42 SMs) on demand on each A100-80GB',
        ),
      },
    });
    expect(slices[0].allocation.dynamicMig!.message).toContain(
      DYNAMIC_MIG_RESOURCE,
    );
  });

  it('strand nothing: the layout lists what a GPU may carve, not one fixed partition', () => {
    const platform = parsePlatform(withMigPool(DYNAMIC));
    const pool = platform.pools.find(p => p.name === 'a100-mig')!;
    const capacity = poolCapacity(platform, pool);
    expect(capacity.strandedUnitsPerGpu).toBe(0);
    expect(capacity.gpuUnits).toBe(8 * 5040);
  });

  it('weigh H100 slices their share of its 132 SMs, rounded up so the ledger never admits what Kueue refuses', () => {
    const platform = parsePlatform(demoPlatformConfig);
    const weights = dynamicMigSliceWeights(platform.gpuModels['H100-80GB'], {
      '1g.10gb': 1,
      '3g.40gb': 1,
      '7g.80gb': 1,
    });
    expect(weights.multiprocessorsPerGpu).toBe(132);
    expect(weights.unitsByProfile).toEqual({
      '1g.10gb': 611, // 16 x 5040 / 132 = 610.9
      '3g.40gb': 2291, // 60 x 5040 / 132 = 2290.9
      '7g.80gb': 5040,
    });
  });

  it('keep static DRA MIG pools as they are', () => {
    const platform = parsePlatform(
      withMigPool({
        allocation: 'dra',
        sharing: { type: 'mig', layout: { '1g.10gb': 7 } },
      }),
    );
    const [slice] = slicesFor(platform, 'a100-mig');
    expect(slice.allocation).toEqual({ backend: 'dra', requested: 'dra' });
    expect(slice.resourceName).toBe('gpu.backstage.io/mig-devices');
  });

  it('take SMs of a GPU model the config gives', () => {
    const config = withMigPool({
      ...DYNAMIC,
      gpuModel: 'A30-SMS',
      sharing: {
        type: 'mig',
        partitioning: 'dynamic',
        layout: { '1g.6gb': 4, '2g.12gb': 2 },
      },
    });
    config.gpuModels = {
      'A30-SMS': {
        memoryGiB: 24,
        productLabel: 'NVIDIA-A30',
        migComputeSlices: 4,
        migProfiles: [
          { name: '1g.6gb', maxInstances: 4, multiprocessors: 14 },
          { name: '2g.12gb', maxInstances: 2, multiprocessors: 28 },
          { name: '4g.24gb', maxInstances: 1, multiprocessors: 56 },
        ],
      },
    };
    const slices = slicesFor(parsePlatform(config), 'a100-mig');
    expect(slices.map(s => s.gpuUnits)).toEqual([1260, 2520]);
  });

  it.each([
    [
      'on the device plugin',
      { ...DYNAMIC, allocation: 'device-plugin' as const },
      /gpu\.pools\[2\]\.sharing\.partitioning: dynamic MIG is carved by the NVIDIA DRA driver on demand: it needs allocation dra/,
    ],
    [
      'without allocation',
      { ...DYNAMIC, allocation: undefined },
      /gpu\.pools\[2\]\.sharing\.partitioning: dynamic MIG .* needs allocation dra/,
    ],
    [
      'on a GPU without MIG',
      {
        ...DYNAMIC,
        gpuModel: 'L4',
        sharing: {
          type: 'mig' as const,
          partitioning: 'dynamic' as const,
          layout: { '1g.6gb': 1 },
        },
      },
      /gpu\.pools\[2\]\.sharing: L4 has no MIG/,
    ],
    [
      'on a GPU whose SMs are not catalogued',
      {
        ...DYNAMIC,
        gpuModel: 'A100-40GB',
        sharing: {
          type: 'mig' as const,
          partitioning: 'dynamic' as const,
          layout: { '1g.5gb': 7 },
        },
      },
      /gpu\.pools\[2\]\.sharing\.partitioning: dynamic MIG weighs slices in SMs, and A100-40GB's whole-GPU MIG profile has none catalogued/,
    ],
    [
      'with a profile whose SMs are not catalogued',
      {
        ...DYNAMIC,
        gpuModel: 'H100-80GB',
        sharing: {
          type: 'mig' as const,
          partitioning: 'dynamic' as const,
          layout: { '1g.10gb': 7, '1g.20gb': 4 },
        },
      },
      /gpu\.pools\[2\]\.sharing\.layout\["1g\.20gb"\]: dynamic MIG weighs slices in SMs, and H100-80GB's 1g\.20gb has none catalogued/,
    ],
    [
      'with more instances of a profile than a GPU holds',
      {
        ...DYNAMIC,
        sharing: {
          type: 'mig' as const,
          partitioning: 'dynamic' as const,
          layout: { '3g.40gb': 3 },
        },
      },
      /gpu\.pools\[2\]\.sharing\.layout\["3g\.40gb"\]: 3 instances; A100-80GB holds at most 2 x 3g\.40gb/,
    ],
  ])('are refused at start-up %s, saying why', (_, change, error) => {
    expect(() => parsePlatform(withMigPool(change))).toThrow(error);
  });

  it('refuses an unknown partitioning', () => {
    expect(() =>
      parsePlatform(
        withMigPool({
          ...DYNAMIC,
          sharing: {
            type: 'mig',
            layout: { '1g.10gb': 7 },
            partitioning: 'on-demand' as 'dynamic',
          },
        }),
      ),
    ).toThrow(/gpu\.pools\[2\]\.sharing\.partitioning.*"static"\|"dynamic"/);
  });
});
