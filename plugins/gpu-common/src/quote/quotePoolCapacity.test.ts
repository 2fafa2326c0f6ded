import { demoPlatformConfig } from '../platform/demoPlatformConfig';
import { parsePlatform } from '../platform/parsePlatform';
import { summariserOnDedicatedL4, summariserRequest } from '../testUtils';
import { OVER_POOL_CAPACITY } from './poolCapacityFit';
import { quoteService } from './quoteService';
import { TeamUsage } from './types';

const platform = parsePlatform(demoPlatformConfig);
const noUsage: TeamUsage = { reservedGpuUnits: {}, committedMonthlyCost: 0 };
/** Other teams hold 4 of l4-ondemand's 4 GPUs: the summariser is within ml-platform's quota, not the pool's room. */
const fullL4 = {
  'l4-ondemand': { units: 4 * 5040, unitsByProfile: {} },
};

describe('quoteService against pool capacity', () => {
  it('says an option beyond the free capacity needs approval under the approval policy, with the figures', () => {
    const quote = quoteService(
      platform,
      summariserOnDedicatedL4,
      noUsage,
      undefined,
      {
        poolCapacity: { held: fullL4, whenOverPoolCapacity: 'approval' },
      },
    );
    const [option] = quote.options;

    expect(option.quota.fits).toBe(true);
    expect(option.poolCapacity).toEqual({
      pool: 'l4-ondemand',
      capacityGpuEquivalents: 4,
      heldGpuEquivalents: 4,
      requestedGpuEquivalents: 1,
      freeGpuEquivalents: 0,
      fits: false,
      shortfall:
        'it has 4 GPUs (4 nodes x 1 GPU), 4 GPU-equivalents are held by all teams and this request needs 1',
    });
    expect(option.verdict).toBe('needs-approval');
    expect(option.reasons).toEqual([
      "Over the free capacity of pool 'l4-ondemand': it has 4 GPUs (4 nodes x 1 GPU), 4 GPU-equivalents are held " +
        'by all teams and this request needs 1. An approver can approve it once capacity is free ' +
        '(gpu.admission.whenOverPoolCapacity: approval)',
    ]);
    expect(OVER_POOL_CAPACITY).toBe('over-pool-capacity');
  });

  it('marks it forbidden under the refuse policy, and recommends a pool with room instead', () => {
    const pinned = quoteService(
      platform,
      summariserOnDedicatedL4,
      noUsage,
      undefined,
      {
        poolCapacity: { held: fullL4, whenOverPoolCapacity: 'refuse' },
      },
    );
    expect(pinned.options[0].verdict).toBe('forbidden');
    expect(pinned.options[0].reasons[0]).toMatch(
      /gpu\.admission\.whenOverPoolCapacity: refuse/,
    );
    expect(pinned.recommended).toBeUndefined();

    const open = quoteService(platform, summariserRequest, noUsage, undefined, {
      poolCapacity: { held: fullL4, whenOverPoolCapacity: 'refuse' },
    });
    expect(open.recommended!.slice.pool).not.toBe('l4-ondemand');
    expect(open.recommended!.poolCapacity!.fits).toBe(true);
  });

  it('leaves options unweighed against capacity when the caller gives no pool figures', () => {
    const quote = quoteService(platform, summariserOnDedicatedL4, noUsage);
    expect(quote.options[0].poolCapacity).toBeUndefined();
    expect(quote.options[0].verdict).toBe('allowed');
  });
});
