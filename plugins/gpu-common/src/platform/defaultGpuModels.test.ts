import { GB, GIB } from '../sizing/units';
import { defaultGpuModels } from './defaultGpuModels';
import { parsePlatform } from './parsePlatform';

/** gpu-facts.md section 2: profile (max instances), per GPU. */
const MIG_TABLE: Record<string, Array<[string, number]>> = {
  'A100-40GB': [
    ['1g.5gb', 7],
    ['1g.10gb', 4],
    ['2g.10gb', 3],
    ['3g.20gb', 2],
    ['4g.20gb', 1],
    ['7g.40gb', 1],
  ],
  'A100-80GB': [
    ['1g.10gb', 7],
    ['1g.20gb', 4],
    ['2g.20gb', 3],
    ['3g.40gb', 2],
    ['4g.40gb', 1],
    ['7g.80gb', 1],
  ],
  'H100-80GB': [
    ['1g.10gb', 7],
    ['1g.20gb', 4],
    ['2g.20gb', 3],
    ['3g.40gb', 2],
    ['4g.40gb', 1],
    ['7g.80gb', 1],
  ],
  'A30-24GB': [
    ['1g.6gb', 4],
    ['2g.12gb', 2],
    ['4g.24gb', 1],
  ],
  'H100-NVL-94GB': [
    ['1g.12gb', 7],
    ['1g.24gb', 4],
    ['2g.24gb', 3],
    ['3g.47gb', 2],
    ['4g.47gb', 1],
    ['7g.94gb', 1],
  ],
  'H200-141GB': [
    ['1g.18gb', 7],
    ['1g.35gb', 4],
    ['2g.35gb', 3],
    ['3g.71gb', 2],
    ['4g.71gb', 1],
    ['7g.141gb', 1],
  ],
};

const ALL_BALANCED: Record<string, Record<string, number>> = {
  'A100-40GB': { '1g.5gb': 2, '2g.10gb': 1, '3g.20gb': 1 },
  'A100-80GB': { '1g.10gb': 2, '2g.20gb': 1, '3g.40gb': 1 },
  'H100-80GB': { '1g.10gb': 2, '2g.20gb': 1, '3g.40gb': 1 },
  'A30-24GB': { '1g.6gb': 2, '2g.12gb': 1 },
  'H100-NVL-94GB': { '1g.12gb': 2, '2g.24gb': 1, '3g.47gb': 1 },
  'H200-141GB': { '1g.18gb': 2, '2g.35gb': 1, '3g.71gb': 1 },
};

describe('defaultGpuModels', () => {
  it('ships every GPU of the issue', () => {
    expect(Object.keys(defaultGpuModels).sort()).toEqual(
      [
        'T4',
        'A10G',
        'L4',
        'L40S',
        'A100-40GB',
        'A100-80GB',
        'H100-80GB',
        'H200-141GB',
        'A30-24GB',
        'H100-NVL-94GB',
      ].sort(),
    );
    for (const [key, gpu] of Object.entries(defaultGpuModels)) {
      expect(gpu.name).toBe(key);
    }
  });

  it.each(Object.entries(MIG_TABLE))(
    '%s has exactly the MIG profiles of gpu-facts.md',
    (name, expected) => {
      const gpu = defaultGpuModels[name];
      expect(gpu.migComputeSlices).toBe(name === 'A30-24GB' ? 4 : 7);
      expect(
        gpu.migProfiles.map(({ multiprocessors: _sms, ...rest }) => rest),
      ).toEqual(
        expected.map(([profile, maxInstances]) => ({
          name: profile,
          computeSlices: Number(profile.split('g.')[0]),
          memoryGb: Number(profile.split('g.')[1].replace('gb', '')),
          maxInstances,
        })),
      );
      for (const profile of gpu.migProfiles) {
        expect(
          profile.computeSlices * profile.maxInstances,
        ).toBeLessThanOrEqual(gpu.migComputeSlices);
        expect(
          profile.memoryGb * GB * profile.maxInstances,
        ).toBeLessThanOrEqual(gpu.memoryGiB * GIB);
      }
    },
  );

  it.each([
    [
      'A100-80GB',
      {
        '1g.10gb': 14,
        '1g.20gb': 14,
        '2g.20gb': 28,
        '3g.40gb': 42,
        '4g.40gb': 56,
        '7g.80gb': 98,
      },
    ],
    [
      'H100-80GB',
      {
        '1g.10gb': 16,
        '2g.20gb': 32,
        '3g.40gb': 60,
        '4g.40gb': 64,
        '7g.80gb': 132,
      },
    ],
  ])(
    '%s has the SMs of the MIG User Guide per profile (what dynamic MIG weighs)',
    (name, sms) => {
      expect(
        Object.fromEntries(
          defaultGpuModels[name].migProfiles
            .filter(p => p.multiprocessors !== undefined)
            .map(p => [p.name, p.multiprocessors]),
        ),
      ).toEqual(sms);
    },
  );

  it.each(['T4', 'A10G', 'L4', 'L40S'])('%s has no MIG', name => {
    expect(defaultGpuModels[name].migComputeSlices).toBe(0);
    expect(defaultGpuModels[name].migProfiles).toEqual([]);
  });

  it('carries the nvidia.com/gpu.product labels and card memory', () => {
    const labels = Object.fromEntries(
      Object.values(defaultGpuModels).map(g => [
        g.name,
        [g.productLabel, g.memoryGiB],
      ]),
    );
    expect(labels).toMatchObject({
      T4: ['Tesla-T4', 16],
      A10G: ['NVIDIA-A10G', 24],
      L4: ['NVIDIA-L4', 24],
      L40S: ['NVIDIA-L40S', 48],
      'A100-40GB': ['NVIDIA-A100-SXM4-40GB', 40],
      'A100-80GB': ['NVIDIA-A100-SXM4-80GB', 80],
      'H100-80GB': ['NVIDIA-H100-80GB-HBM3', 80],
      'H200-141GB': ['NVIDIA-H200', 141],
    });
  });

  it.each(Object.entries(ALL_BALANCED))(
    'accepts the all-balanced layout of %s',
    (gpuModel, layout) => {
      const platform = parsePlatform({
        pools: [
          {
            name: 'mig',
            gpuModel,
            gpusPerNode: 8,
            maxNodes: 1,
            pricePerNodeHour: 1,
            sharing: { type: 'mig', layout },
          },
        ],
      });
      expect(platform.pools[0].sharing).toEqual({ type: 'mig', layout });
    },
  );
});
