import { demoPlatformConfig } from '../platform/demoPlatformConfig';
import { parsePlatform } from '../platform/parsePlatform';
import { summariserRequest } from '../testUtils';
import { fitSlices } from '../sizing/fitSlices';
import { estimateSliceThroughput } from './estimateSliceThroughput';
import { sliceBandwidthShare } from './sliceBandwidthShare';

const platform = parsePlatform({
  ...demoPlatformConfig,
  pools: [
    ...demoPlatformConfig.pools,
    {
      name: 'a100-mig-20',
      gpuModel: 'A100-80GB',
      gpusPerNode: 8,
      maxNodes: 1,
      pricePerNodeHour: '27.447',
      sharing: { type: 'mig', layout: { '1g.20gb': 4 } },
    },
  ],
});

function migFit(pool: string, profile: string) {
  return fitSlices(platform, { ...summariserRequest, pool, tier: 'mig' }).find(
    f => f.slice.migProfile === profile,
  )!;
}

describe('sliceBandwidthShare', () => {
  it('gives a MIG slice its memory slices over the GPU memory slices', () => {
    // A100-80GB: 8 memory slices of 10 GB; 1g.10gb holds 1, 1g.20gb 2, 2g.20gb 2, 3g.40gb 4.
    expect(
      sliceBandwidthShare(platform, migFit('a100-mig', '1g.10gb').slice),
    ).toBe(1 / 8);
    expect(
      sliceBandwidthShare(platform, migFit('a100-mig', '2g.20gb').slice),
    ).toBe(2 / 8);
    expect(
      sliceBandwidthShare(platform, migFit('a100-mig', '3g.40gb').slice),
    ).toBe(4 / 8);
    expect(
      sliceBandwidthShare(platform, migFit('a100-mig-20', '1g.20gb').slice),
    ).toBe(2 / 8);
  });

  it('gives dedicated replicas their GPUs and shared ones 1/R', () => {
    const dedicated = fitSlices(platform, {
      ...summariserRequest,
      pool: 'l4-ondemand',
      tier: 'dedicated',
    })[0];
    expect(sliceBandwidthShare(platform, dedicated.slice)).toBe(1);
    const mps = fitSlices(platform, {
      ...summariserRequest,
      pool: 'l4-mps',
      tier: 'mps',
    })[0];
    expect(sliceBandwidthShare(platform, mps.slice)).toBe(1 / 4);
  });
});

describe('estimateSliceThroughput on MIG', () => {
  it('reads at 2/8 of the A100-80GB bandwidth on a 1g.20gb slice, not its 1/7 of compute', () => {
    const request = { ...summariserRequest, concurrency: 1 };
    const fit = migFit('a100-mig-20', '1g.20gb');
    // One sequence of 1,024 tokens (the assumed average context) of 128 KiB per token: 32 layers x 8 KV heads x
    // 128 dims x 2 (K and V) x 2 bytes.
    const kvPerSequence = 1024 * 32 * 8 * 128 * 2 * 2;
    const bytesPerStep = fit.memory.weightsBytes + kvPerSequence;
    const bandwidth = 2039e9 * (2 / 8) * 0.8;
    expect(estimateSliceThroughput(platform, request, fit)).toBeCloseTo(
      bandwidth / bytesPerStep,
      9,
    );
  });
});
