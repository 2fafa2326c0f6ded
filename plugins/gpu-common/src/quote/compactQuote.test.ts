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
      monthlyMicros: first.cost.monthly,
      ...(first.cost.costPerThousandTokens !== undefined && {
        costPerThousandTokensMicros: first.cost.costPerThousandTokens,
      }),
      headroomBytes: first.headroomBytes,
      fullLengthSequences: first.fullLengthSequences,
    });
    for (const u of compact.unavailable) {
      expect(keys.has(`${u.tier}/${u.pool}`)).toBe(false);
      const sameKey = quote.unavailable.filter(
        x => x.slice.tier === u.tier && x.slice.pool === u.pool,
      );
      const best = Math.max(
        ...sameKey.map(x => x.availableBytes - x.requiredBytes),
      );
      expect(u.availableBytes - u.requiredBytes).toBe(best);
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
});
