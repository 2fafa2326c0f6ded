import { demoPlatformConfig } from '../platform/demoPlatformConfig';
import { parsePlatform } from '../platform/parsePlatform';
import { Platform } from '../platform/types';
import { summariserRequest } from '../testUtils';
import { quoteService } from './quoteService';
import { TeamUsage } from './types';

const noUsage: TeamUsage = { reservedGpuUnits: {}, committedMonthlyCost: 0 };

/** The demo platform with its on-demand L4 pool on `prod-eu` and every other pool on `dev`. */
function fleet(productionClusters: string[]): Platform {
  const platform = parsePlatform(demoPlatformConfig);
  return {
    ...platform,
    pools: platform.pools.map(p => ({
      ...p,
      cluster: p.name === 'l4-ondemand' ? 'prod-eu' : 'dev',
    })),
    environments: platform.environments.map(e =>
      e.name === 'production' ? { ...e, clusters: productionClusters } : e,
    ),
  };
}

describe('quoteService across clusters', () => {
  it('names each option’s cluster and forbids the clusters the environment may not use', () => {
    const quote = quoteService(fleet(['prod-*']), summariserRequest, noUsage);
    expect(summariserRequest.environment).toBe('production');
    const onProd = quote.options.filter(o => o.cluster === 'prod-eu');
    const onDev = quote.options.filter(o => o.cluster === 'dev');
    expect(onProd.length).toBeGreaterThan(0);
    expect(onDev.length).toBeGreaterThan(0);
    expect(onDev.every(o => o.verdict === 'forbidden')).toBe(true);
    expect(onDev[0].reasons).toContain(
      `Environment production may not run on cluster dev (pool ${onDev[0].slice.pool}); allowed clusters: prod-*`,
    );
    expect(quote.recommended?.cluster).toBe('prod-eu');
    expect(quote.recommendation?.reason).toBeDefined();
  });

  it('says why it recommends: the only allowed option, or the cheapest', () => {
    const narrowed = quoteService(
      fleet(['prod-*']),
      { ...summariserRequest, pool: 'l4-ondemand', tier: 'dedicated' },
      noUsage,
    );
    expect(narrowed.recommendation?.reason).toBe('only-option');
    const open = quoteService(fleet(['*']), summariserRequest, noUsage);
    expect(open.recommendation?.reason).toMatch(
      /^(lowest-price|environment-preference|most-free-capacity)$/,
    );
    expect(open.recommendation?.message).toContain(
      open.recommended!.slice.pool,
    );
  });

  it('lets every cluster be used when the environment lists none', () => {
    const platform = parsePlatform(demoPlatformConfig);
    const quote = quoteService(platform, summariserRequest, noUsage);
    expect(quote.options.some(o => o.cluster !== undefined)).toBe(false);
    expect(quote.recommended?.verdict).toBe('allowed');
  });
});
