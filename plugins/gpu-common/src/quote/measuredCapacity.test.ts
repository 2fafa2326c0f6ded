import { demoPlatformConfig } from '../platform/demoPlatformConfig';
import { parsePlatform } from '../platform/parsePlatform';
import { summariserOnDedicatedL4, summariserRequest } from '../testUtils';
import { MeasuredCapacity, sliceShapeKey } from './measuredCapacity';
import { quoteService } from './quoteService';
import { TeamUsage } from './types';

const platform = parsePlatform(demoPlatformConfig);
const noUsage: TeamUsage = {
  reservedGpuUnits: {},
  committedMonthlyCost: 0,
};

const source = {
  serviceId: '8d0f7a52-3c1e-4b9a-9f2d-6e5c4b3a2d10',
  service: 'summariser-prod',
  windowStart: '2026-11-24T12:00:00.000Z',
  windowEnd: '2026-12-01T12:00:00.000Z',
};
const l4Dedicated: MeasuredCapacity = {
  shape: {
    model: 'llama-3.1-8b',
    dtype: 'bf16',
    gpuModel: 'L4',
    tier: 'dedicated',
    gpusPerReplica: 1,
    gpuShare: 1,
  },
  tokensPerSecond: 1500,
  source,
};

function l4Option(
  request = summariserOnDedicatedL4,
  measuredCapacities: readonly MeasuredCapacity[] = [l4Dedicated],
) {
  return quoteService(platform, request, noUsage, undefined, {
    measuredCapacities,
  }).options.find(o => o.slice.pool === 'l4-ondemand')!;
}

describe('quotes with measured capacities of running services', () => {
  it('uses the measured tokens/s of the same model and slice shape, saying where it came from', () => {
    const option = l4Option({
      ...summariserOnDedicatedL4,
      expectedTokensPerSecond: 600,
    });
    expect(option.throughput).toEqual({
      basis: 'stated',
      capacityBasis: 'measured',
      measuredBy: source,
      capacityTokensPerSecond: 1500,
      demandTokensPerSecond: 600,
      utilisation: 0.4,
      costFactor: 2.5,
      saturated: false,
    });
    // 804,800 micro-dollars an hour over 1,500 x 3,600 = 5.4 M tokens: 149.04 per 1,000.
    expect(option.cost.idealCostPerThousandTokens).toBe(149);
  });

  it('scales the per-replica figure by the replicas', () => {
    const option = l4Option({ ...summariserOnDedicatedL4, replicas: 3 });
    expect(option.throughput.capacityTokensPerSecond).toBe(4500);
  });

  it('ignores a measurement of another dtype, GPU model or tier', () => {
    const others: MeasuredCapacity[] = [
      { ...l4Dedicated, shape: { ...l4Dedicated.shape, dtype: 'fp8' } },
      { ...l4Dedicated, shape: { ...l4Dedicated.shape, gpuModel: 'T4' } },
      {
        ...l4Dedicated,
        shape: { ...l4Dedicated.shape, tier: 'mps', gpuShare: 0.25 },
      },
    ];
    const option = l4Option(summariserOnDedicatedL4, others);
    expect(option.throughput.capacityBasis).toBe('estimated');
    expect(option.throughput.measuredBy).toBeUndefined();
    expect(option.throughput.capacityTokensPerSecond).not.toBe(1500);
  });

  it('takes the dtype of a request without one from the model (bf16 for Llama-3.1-8B)', () => {
    const { dtype: _, ...withoutDtype } = summariserOnDedicatedL4;
    expect(l4Option(withoutDtype).throughput.measuredBy).toEqual(source);
  });

  it('lets the capacity the request states win over a service measurement', () => {
    const option = l4Option({
      ...summariserOnDedicatedL4,
      measuredTokensPerSecond: 1200,
    });
    expect(option.throughput.capacityTokensPerSecond).toBe(1200);
    expect(option.throughput.capacityBasis).toBe('measured');
    expect(option.throughput.measuredBy).toBeUndefined();
  });

  it('applies to every option of a quote across pools by their own shape', () => {
    const quote = quoteService(
      platform,
      summariserRequest,
      noUsage,
      undefined,
      {
        measuredCapacities: [l4Dedicated],
      },
    );
    const measured = quote.options.filter(
      o => o.throughput.capacityBasis === 'measured',
    );
    expect(measured.length).toBeGreaterThan(0);
    expect(measured.map(o => o.slice.pool).sort()).toEqual(
      quote.options
        .filter(
          o =>
            o.slice.gpuModel === 'L4' &&
            o.slice.tier === 'dedicated' &&
            o.slice.gpusPerReplica === 1,
        )
        .map(o => o.slice.pool)
        .sort(),
    );
  });
});

describe('sliceShapeKey', () => {
  it('tells a 1/4 share from a 1/2 share and a MIG profile from another', () => {
    const mps = { ...l4Dedicated.shape, tier: 'mps' as const, gpuShare: 0.25 };
    expect(sliceShapeKey(mps)).not.toBe(
      sliceShapeKey({ ...mps, gpuShare: 0.5 }),
    );
    const mig = {
      ...l4Dedicated.shape,
      gpuModel: 'A100-80GB',
      tier: 'mig' as const,
      migProfile: '1g.10gb',
    };
    expect(sliceShapeKey(mig)).not.toBe(
      sliceShapeKey({ ...mig, migProfile: '2g.20gb' }),
    );
  });
});
