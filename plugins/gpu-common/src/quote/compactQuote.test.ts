import { demoPlatformConfig, parsePlatform, quoteService } from '..';
import { summariserRequest } from '../testUtils';
import { compactQuote } from './compactQuote';

describe('compactQuote', () => {
  const platform = parsePlatform(demoPlatformConfig);
  const usage = { reservedGpuUnits: {}, committedMonthlyCost: 0 };

  it('keeps the first option of each tier and pool with its figures, and the closest slice of each tier and pool without one', () => {
    const quote = quoteService(platform, summariserRequest, usage);
    const compact = compactQuote(quote);
    const keys = new Set(
      quote.options.map(o => `${o.slice.tier}/${o.slice.pool}`),
    );
    expect(compact.choices).toHaveLength(keys.size);
    expect(compact.optionCount).toBe(quote.options.length);
    const [first] = quote.options;
    expect(compact.choices[0]).toEqual({
      tier: first.slice.tier,
      pool: first.slice.pool,
      ...(first.slice.migProfile && { migProfile: first.slice.migProfile }),
      gpusPerReplica: first.slice.gpusPerReplica,
      verdict: first.verdict,
      replicas: first.replicas,
      monthlyMicros: first.cost.monthly,
      ...(first.cost.costPerThousandTokens !== undefined && {
        costPerThousandTokensMicros: first.cost.costPerThousandTokens,
      }),
      headroomBytes: Math.round(first.headroomBytes),
      fullLengthSequences: first.fullLengthSequences,
      quota: {
        nominal: first.quota.nominal,
        used: first.quota.used,
        remaining: Math.round(first.quota.remaining * 1000) / 1000,
      },
    });
    expect(compact.quotedDtype).toEqual(
      quote.dtypes.find(d => d.dtype === quote.dtype),
    );
    for (const u of compact.unavailable) {
      expect(keys.has(`${u.tier}/${u.pool}`)).toBe(false);
      const sameKey = quote.unavailable.filter(
        x => x.slice.tier === u.tier && x.slice.pool === u.pool,
      );
      const best = Math.max(
        ...sameKey.map(x => x.availableBytes - x.requiredBytes),
      );
      expect(u.availableBytes - u.requiredBytes).toBeCloseTo(best, -1);
      expect(Number.isInteger(u.availableBytes)).toBe(true);
    }
    expect(compact.recommended).toMatchObject({
      tier: quote.recommended!.slice.tier,
      pool: quote.recommended!.slice.pool,
    });
    expect(compact.recommendation).toEqual(quote.recommendation);
    expect(compact).not.toHaveProperty('teamFiguresWithheld');
    expect(JSON.stringify(compact).length).toBeLessThan(
      JSON.stringify(quote).length / 3,
    );
  });

  it('leaves out the team figures a quote withholds, and prices an autoscaled request as the quote does', () => {
    const quote = quoteService(
      platform,
      {
        ...summariserRequest,
        autoscaling: {
          minReplicas: 1,
          maxReplicas: 3,
          targetQueueDepth: 5,
          engine: 'keda',
        },
      },
      usage,
    );
    const { options, recommended, ...rest } = quote;
    const withheld = compactQuote({
      ...rest,
      options: options.map(({ quota, budget, ...o }) => o),
      ...(recommended && { recommended }),
      teamFiguresWithheld: 'not a member',
    });
    expect(withheld.teamFiguresWithheld).toBe('not a member');
    expect(withheld.choices.some(c => c.quota)).toBe(false);
    const compact = compactQuote(quote);
    expect(options[0].scaling.basis).not.toBe('fixed');
    expect(compact.choices[0].scaling).toEqual(options[0].scaling);
    expect(compact.choices[0].replicas).toBe(options[0].replicas);
  });
});
