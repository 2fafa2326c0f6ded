import fc from 'fast-check';
import { formatUsd } from '../cost/formatUsd';
import { parseUsd } from '../cost/money';
import { GpuDomainError } from '../errors';
import { demoPlatformConfig } from '../platform/demoPlatformConfig';
import { parsePlatform } from '../platform/parsePlatform';
import { ServiceRequest } from '../service/types';
import { GB } from '../sizing/units';
import { summariserOnDedicatedL4, summariserRequest } from '../testUtils';
import { quoteService } from './quoteService';
import { TeamUsage } from './types';

const platform = parsePlatform(demoPlatformConfig);
const noUsage: TeamUsage = {
  reservedGpuUnits: {},
  committedMonthlyCost: 0,
};

function optionOn(
  quote: ReturnType<typeof quoteService>,
  pool: string,
  gpusPerReplicaOrProfile: number | string = 1,
) {
  return quote.options.find(
    o =>
      o.slice.pool === pool &&
      (typeof gpusPerReplicaOrProfile === 'string'
        ? o.slice.migProfile === gpusPerReplicaOrProfile
        : o.slice.gpusPerReplica === gpusPerReplicaOrProfile),
  );
}

describe('quoteService', () => {
  it('recommends a dedicated on-demand L4 for the report summariser in production', () => {
    const quote = quoteService(platform, summariserRequest, noUsage);
    const recommended = quote.recommended!;
    expect(recommended.slice).toMatchObject({
      tier: 'dedicated',
      pool: 'l4-ondemand',
      gpuModel: 'L4',
      gpusPerReplica: 1,
      resourceName: 'nvidia.com/gpu',
    });
    expect(recommended.verdict).toBe('allowed');
    expect(recommended.capacityType).toBe('on-demand');
    // "an 8B model in bf16 on a 24 GB L4 leaves ~6 GB for KV cache"
    expect(recommended.kvCacheBudgetBytes / GB).toBeGreaterThan(5.5);
    expect(recommended.kvCacheBudgetBytes / GB).toBeLessThan(6.5);
    // 0.8048 USD/h x 730 h
    expect(recommended.cost.monthly).toBe(parseUsd('587.504'));
    expect(recommended.gpuEquivalents).toBe(1);
    expect(recommended.quota).toEqual({
      pool: 'l4-ondemand',
      nominal: 4,
      used: 0,
      requested: 1,
      remaining: 3,
      fits: true,
    });
    // The cheaper spot L4 is outside the team's quota and not preferred for production.
    expect(optionOn(quote, 'spot-l4')?.verdict).toBe('needs-approval');
  });

  it('needs approval for spot capacity in production, with the reason, and not in dev', () => {
    // The search team holds a quota of 6 on spot-l4, so only the capacity type stands in the way.
    const request: ServiceRequest = {
      ...summariserRequest,
      team: 'search',
      tier: 'dedicated',
      pool: 'spot-l4',
    };
    const production = quoteService(platform, request, noUsage);
    const spot = optionOn(production, 'spot-l4')!;
    expect(spot.verdict).toBe('needs-approval');
    expect(spot.reasons).toEqual([
      "Pool spot-l4 is spot capacity, which can be reclaimed with two minutes' notice: wrong for production " +
        'inference in production; an approver must accept that risk, or choose an on-demand pool',
    ]);
    const dev = quoteService(
      platform,
      { ...request, environment: 'dev' },
      noUsage,
    );
    expect(optionOn(dev, 'spot-l4')).toMatchObject({
      verdict: 'allowed',
      reasons: [],
    });
  });

  it('needs approval when month-to-date spend and the rest of the month are above the budget', () => {
    // ml-platform's $60,000: spent $59,400, holds $500 until the end of the month, 10 days (240 h) left.
    const month = {
      month: '2026-12',
      monthToDate: parseUsd('59400'),
      heldRestOfMonth: parseUsd('500'),
      secondsLeft: 240 * 3600,
    };
    const quote = quoteService(platform, summariserOnDedicatedL4, {
      ...noUsage,
      month,
    });
    const l4 = optionOn(quote, 'l4-ondemand')!;
    // The run-rate fits ($587.50 of $60,000); the month does not: 240 h x $0.8048 = $193.15 more.
    expect(l4.budget.fits).toBe(true);
    expect(l4.verdict).toBe('needs-approval');
    expect(l4.reasons).toEqual([
      'Team ml-platform has spent $59,400.00 in 2026-12; with what it holds ($500.00) and this request ' +
        '($193.15) until the end of the month it would spend $60,093.15, above its $60,000.00 monthly budget',
    ]);
    // $100 less spent: it fits the month.
    const fits = quoteService(platform, summariserOnDedicatedL4, {
      ...noUsage,
      month: { ...month, monthToDate: parseUsd('59300') },
    });
    expect(optionOn(fits, 'l4-ondemand')!.verdict).toBe('allowed');
  });

  it('lists the slices the model does not fit with the reason', () => {
    const quote = quoteService(platform, summariserRequest, noUsage);
    const unavailable = quote.unavailable.map(
      u => u.slice.migProfile ?? u.slice.pool,
    );
    expect(unavailable).toEqual(
      expect.arrayContaining(['1g.10gb', '2g.20gb', 'l4-mps', 't4-timeslice']),
    );
    const tiny = quote.unavailable.find(u => u.slice.migProfile === '1g.10gb')!;
    expect(tiny.reason).toMatch(/needs 18\.\d GB but a 1g\.10gb MIG slice/);
    expect(quote.options.some(o => o.slice.migProfile === '1g.10gb')).toBe(
      false,
    );
  });

  it('quotes tiers the environment forbids as forbidden, never recommending them', () => {
    const small: ServiceRequest = {
      ...summariserRequest,
      name: 'tiny',
      model: 'llama-3.2-3b',
      maxModelLen: 2048,
      concurrency: 4,
      dtype: 'int4',
    };
    const quote = quoteService(platform, small, noUsage);
    const mps = optionOn(quote, 'l4-mps')!;
    const timeSliced = optionOn(quote, 't4-timeslice')!;
    for (const option of [mps, timeSliced]) {
      expect(option.verdict).toBe('forbidden');
      expect(option.reasons[0]).toMatch(
        /^Environment production does not allow the (mps|time-sliced) tier; allowed: dedicated or mig$/,
      );
    }
    // Forbidden options are the cheapest here, yet they sort last and are never recommended.
    expect(timeSliced.cost.monthly).toBeLessThan(
      quote.recommended!.cost.monthly,
    );
    expect(quote.options.slice(-2).map(o => o.verdict)).toEqual([
      'forbidden',
      'forbidden',
    ]);
    expect(quote.recommended!.slice.tier).toMatch(/^(dedicated|mig)$/);

    // In dev the same request may use them, and the cheapest wins.
    const dev = quoteService(
      platform,
      { ...small, environment: 'dev' },
      noUsage,
    );
    expect(dev.recommended!.slice.tier).toBe('time-sliced');
    expect(dev.recommended!.verdict).toBe('allowed');
  });

  it('needs approval over quota, and recommends the best option within quota', () => {
    const usage: TeamUsage = {
      // 3.5 GPUs held, in GPU units
      reservedGpuUnits: { 'l4-ondemand': 3.5 * 5040 },
      committedMonthlyCost: 0,
    };
    const quote = quoteService(platform, summariserRequest, usage);
    const l4 = optionOn(quote, 'l4-ondemand')!;
    expect(l4.verdict).toBe('needs-approval');
    expect(l4.quota).toMatchObject({
      used: 3.5,
      requested: 1,
      remaining: -0.5,
      fits: false,
    });
    expect(l4.reasons).toEqual([
      'Needs 1 GPU-equivalent of pool l4-ondemand; team ml-platform has 0.5 of 4 left',
    ]);
    expect(quote.recommended!.slice).toMatchObject({
      pool: 'a100-mig',
      migProfile: '3g.40gb',
    });
    expect(quote.recommended!.verdict).toBe('allowed');
  });

  it('needs approval over budget', () => {
    const budget = parseUsd('60000');
    const usage: TeamUsage = {
      reservedGpuUnits: {},
      committedMonthlyCost: budget - parseUsd('600'),
    };
    const quote = quoteService(platform, summariserRequest, usage);
    const l4 = optionOn(quote, 'l4-ondemand')!;
    expect(l4.budget.fits).toBe(true);
    expect(l4.budget.remaining).toBe(parseUsd('12.496'));
    const mig = optionOn(quote, 'a100-mig', '3g.40gb')!;
    expect(mig.verdict).toBe('needs-approval');
    expect(mig.budget.fits).toBe(false);
    expect(mig.reasons).toEqual([
      `Costs ${formatUsd(
        mig.cost.monthly,
      )} a month; team ml-platform has $600.00 of its $60,000.00 monthly budget left`,
    ]);
  });

  it('needs approval for dedicated GPUs above the environment limit', () => {
    const big: ServiceRequest = {
      ...summariserRequest,
      name: 'big',
      model: 'llama-3.1-70b',
      environment: 'dev',
      concurrency: 16,
    };
    const quote = quoteService(platform, big, noUsage);
    const byGpus = (n: number) => optionOn(quote, 'h100', n)!;
    expect(byGpus(1)).toBeUndefined();
    expect(byGpus(2).verdict).toBe('allowed');
    expect(byGpus(4).verdict).toBe('needs-approval');
    expect(byGpus(4).reasons).toEqual([
      '4 dedicated GPUs is above the 2 that dev allows without approval',
    ]);
    expect(quote.recommended).toBe(byGpus(2));
  });

  it('counts the dedicated GPUs of every replica against the environment limit', () => {
    const twoReplicas: ServiceRequest = {
      ...summariserRequest,
      name: 'big',
      model: 'llama-3.1-70b',
      environment: 'dev',
      concurrency: 16,
      replicas: 2,
      tier: 'dedicated',
      pool: 'h100',
    };
    const quote = quoteService(platform, twoReplicas, noUsage);
    const twoH100s = optionOn(quote, 'h100', 2)!;
    expect(twoH100s.verdict).toBe('needs-approval');
    expect(twoH100s.reasons).toContain(
      '4 dedicated GPUs (2 replicas x 2) is above the 2 that dev allows without approval',
    );

    const twoReplicasOfOne = quoteService(
      platform,
      { ...summariserOnDedicatedL4, environment: 'dev', replicas: 2 },
      noUsage,
    );
    expect(
      optionOn(twoReplicasOfOne, 'l4-ondemand')!.reasons,
    ).not.toContainEqual(expect.stringContaining('dedicated GPUs'));
  });

  it('costs replicas x slice, with spot savings against on-demand L4', () => {
    const batch: ServiceRequest = {
      ...summariserRequest,
      name: 'ocr',
      team: 'search',
      environment: 'dev',
      replicas: 3,
      pool: 'spot-l4',
    };
    const quote = quoteService(platform, batch, noUsage);
    expect(quote.options).toHaveLength(1);
    const spot = quote.options[0];
    expect(spot.gpuEquivalents).toBe(3);
    expect(spot.cost.hourly).toBe(parseUsd('1.11')); // 3 x 0.37
    expect(spot.cost.monthly).toBe(parseUsd('810.3')); // 3 x 0.37 x 730
    // (0.8048 - 0.37) x 3 x 730
    expect(spot.cost.spotSavingMonthly).toBe(parseUsd('952.212'));
    expect(quote.recommended).toBe(spot);
  });

  it('prices 1,000 tokens at the stated demand, with the capacity-utilisation factor', () => {
    const quote = quoteService(
      platform,
      { ...summariserRequest, expectedTokensPerSecond: 100 },
      noUsage,
    );
    const l4 = optionOn(quote, 'l4-ondemand')!;
    const capacity = l4.throughput.capacityTokensPerSecond!;
    expect(l4.throughput).toMatchObject({
      basis: 'stated',
      demandTokensPerSecond: 100,
      saturated: false,
    });
    expect(l4.throughput.utilisation).toBeCloseTo(100 / capacity, 12);
    expect(l4.throughput.costFactor).toBeCloseTo(capacity / 100, 12);
    // 0.8048 USD/h / (100 tokens/s x 3,600 s / 1,000) = 0.0022356 USD
    expect(l4.cost.costPerThousandTokens).toBe(2236);
    expect(l4.cost.idealCostPerThousandTokens).toBe(
      Math.round((804_800 * 1000) / (capacity * 3600)),
    );

    const estimated = optionOn(
      quoteService(platform, summariserRequest, noUsage),
      'l4-ondemand',
    )!;
    expect(estimated.throughput.basis).toBe('estimated');
    expect(estimated.cost.costPerThousandTokens).toBe(
      estimated.cost.idealCostPerThousandTokens,
    );
  });

  it('uses a measured capacity and says so: 600 of 1,500 tokens/s is 40% and 2.5x the ideal', () => {
    const quote = quoteService(
      platform,
      {
        ...summariserOnDedicatedL4,
        expectedTokensPerSecond: 600,
        measuredTokensPerSecond: 1500,
      },
      noUsage,
    );
    const l4 = optionOn(quote, 'l4-ondemand')!;
    expect(l4.throughput).toEqual({
      basis: 'stated',
      capacityBasis: 'measured',
      capacityTokensPerSecond: 1500,
      demandTokensPerSecond: 600,
      utilisation: 0.4,
      costFactor: 2.5,
      saturated: false,
    });
    // 0.8048 USD/h = 804,800 micro-dollars.
    expect(l4.cost.idealCostPerThousandTokens).toBe(149); // 804,800 x 1,000 / 5,400,000 = 149.04
    expect(l4.cost.costPerThousandTokens).toBe(373); // 804,800 x 1,000 / 2,160,000 = 372.59
    expect(l4.cost.costPerRequest).toBe(112); // 804,800 x 300 / 2,160,000 = 111.78
    // 804,800 / 2,160,000 x 300/370 x 1e6 = 302,102.10; a tenth of it for input.
    expect(l4.cost.costPerMillionOutputTokens).toBe(302_102);
    expect(l4.cost.costPerMillionInputTokens).toBe(30_210);

    const estimated = optionOn(
      quoteService(platform, summariserOnDedicatedL4, noUsage),
      'l4-ondemand',
    )!;
    expect(estimated.throughput.capacityBasis).toBe('estimated');
    expect(estimated.cost.costPerRequest).toBeGreaterThan(0);
    expect(estimated.cost.costPerMillionInputTokens! * 10).toBeCloseTo(
      estimated.cost.costPerMillionOutputTokens!,
      -1,
    );
  });

  it('rejects unknown teams and negative numbers with typed errors', () => {
    expect(() =>
      quoteService(platform, { ...summariserRequest, team: 'nobody' }, noUsage),
    ).toThrow(expect.objectContaining({ code: 'UNKNOWN_TEAM' }));
    expect(() =>
      quoteService(platform, { ...summariserRequest, replicas: -1 }, noUsage),
    ).toThrow(GpuDomainError);
    expect(() =>
      quoteService(platform, summariserRequest, {
        reservedGpuUnits: { 'l4-ondemand': -1 },
        committedMonthlyCost: 0,
      }),
    ).toThrow(/allowed: a whole number of GPU units, 0 or more/);
  });

  it('sorts allowed first, then cheapest per month, and recommends within policy', () => {
    const models = Object.keys(platform.models);
    fc.assert(
      fc.property(
        fc.record({
          model: fc.constantFrom(...models),
          environment: fc.constantFrom('dev', 'staging', 'production'),
          team: fc.constantFrom('ml-platform', 'search'),
          maxModelLen: fc.constantFrom(1024, 4096, 8192),
          concurrency: fc.integer({ min: 1, max: 64 }),
          replicas: fc.integer({ min: 0, max: 6 }),
          reserved: fc.integer({ min: 0, max: 8 * 5040 }),
          committed: fc.integer({ min: 0, max: 70_000_000_000 }),
        }),
        input => {
          const quote = quoteService(
            platform,
            {
              ...summariserRequest,
              model: input.model,
              dtype: undefined,
              environment: input.environment,
              team: input.team,
              maxModelLen: input.maxModelLen,
              concurrency: input.concurrency,
              replicas: input.replicas,
            },
            {
              reservedGpuUnits: {
                'l4-ondemand': input.reserved,
                'a100-mig': input.reserved,
              },
              committedMonthlyCost: input.committed,
            },
          );
          const rank = { allowed: 0, 'needs-approval': 1, forbidden: 2 };
          const keys = quote.options.map(o => [
            rank[o.verdict],
            o.cost.monthly,
          ]);
          const sorted = [...keys].sort((x, y) => x[0] - y[0] || x[1] - y[1]);
          expect(keys).toEqual(sorted);
          for (const option of quote.options) {
            expect(option.headroomBytes).toBeGreaterThanOrEqual(0);
            expect(option.verdict === 'allowed').toBe(
              option.reasons.length === 0,
            );
            expect(
              option.budget.requested +
                option.budget.remaining +
                option.budget.committed,
            ).toBe(option.budget.monthlyBudget);
          }
          const verdicts = quote.options.map(o => o.verdict);
          let expected: string | undefined;
          if (verdicts.includes('allowed')) {
            expected = 'allowed';
          } else if (verdicts.includes('needs-approval')) {
            expected = 'needs-approval';
          }
          expect(quote.recommended?.verdict).toBe(expected);
        },
      ),
      { numRuns: 60 },
    );
  });
});
