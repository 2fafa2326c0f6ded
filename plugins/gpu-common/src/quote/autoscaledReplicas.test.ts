import { ConfigReader } from '@backstage/config';
import { parseUsd } from '../cost/money';
import { GpuDomainError } from '../errors';
import { demoPlatformConfig } from '../platform/demoPlatformConfig';
import { parsePlatform } from '../platform/parsePlatform';
import { ServiceRequest } from '../service/types';
import { summariserOnDedicatedL4 } from '../testUtils';
import {
  parseAutoscaledReplicasPolicy,
  readAutoscaledReplicasPolicy,
} from './autoscaledReplicas';
import { quoteService } from './quoteService';
import { TeamUsage } from './types';

const platform = parsePlatform(demoPlatformConfig);
const noUsage: TeamUsage = { reservedGpuUnits: {}, committedMonthlyCost: 0 };
/** One dedicated on-demand L4 (0.8048 USD/h) for 730 h. */
const L4_MONTH = parseUsd('587.504');
const GPU_UNITS = 5040;

/** The summariser on dedicated L4s (ml-platform holds 4 there), autoscaling from 1 to 4 replicas. */
const autoscaled: ServiceRequest = {
  ...summariserOnDedicatedL4,
  autoscaling: {
    minReplicas: 1,
    maxReplicas: 4,
    targetQueueDepth: 4,
    engine: 'keda',
  },
};

function onlyOption(quote: ReturnType<typeof quoteService>) {
  expect(quote.options).toHaveLength(1);
  return quote.options[0];
}

describe('parseAutoscaledReplicasPolicy', () => {
  it('defaults to the maximum and accepts both policies', () => {
    expect(parseAutoscaledReplicasPolicy(undefined)).toBe('maximum');
    expect(parseAutoscaledReplicasPolicy('maximum')).toBe('maximum');
    expect(parseAutoscaledReplicasPolicy('minimum-plus-burst')).toBe(
      'minimum-plus-burst',
    );
    expect(
      readAutoscaledReplicasPolicy(
        new ConfigReader({
          gpu: { admission: { autoscaledReplicas: 'minimum-plus-burst' } },
        }),
      ),
    ).toBe('minimum-plus-burst');
    expect(readAutoscaledReplicasPolicy(new ConfigReader({}))).toBe('maximum');
  });

  it('refuses anything else, naming the key and the policies', () => {
    for (const raw of ['minimum', 3, null, {}]) {
      let error: unknown;
      try {
        parseAutoscaledReplicasPolicy(raw);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(GpuDomainError);
      expect((error as GpuDomainError).code).toBe('INVALID_CONFIG');
      expect((error as GpuDomainError).message).toMatch(
        /^gpu\.admission\.autoscaledReplicas: .* is not a policy; allowed: 'maximum' .* or 'minimum-plus-burst'/,
      );
    }
  });
});

describe('quoteService on an autoscaled request', () => {
  it('prices the request’s replicas when it does not autoscale, and says so', () => {
    const option = onlyOption(
      quoteService(
        platform,
        { ...summariserOnDedicatedL4, replicas: 2 },
        noUsage,
        undefined,
        {
          autoscaledReplicas: 'minimum-plus-burst',
        },
      ),
    );
    expect(option.replicas).toBe(2);
    expect(option.scaling).toEqual({ basis: 'fixed', burstReplicas: 0 });
    expect(option.cost.monthly).toBe(2 * L4_MONTH);
    expect(option.cost).not.toHaveProperty('burstMonthly');
    expect(option.quota).not.toHaveProperty('burstReplicasWithinQuota');
  });

  it('reserves and prices the maximum replicas under `maximum`, the default', () => {
    for (const extra of [{}, { autoscaledReplicas: 'maximum' as const }]) {
      const option = onlyOption(
        quoteService(platform, autoscaled, noUsage, undefined, extra),
      );
      expect(option.replicas).toBe(4);
      expect(option.scaling).toEqual({
        basis: 'maximum',
        minReplicas: 1,
        maxReplicas: 4,
        burstReplicas: 0,
      });
      expect(option.gpuEquivalents).toBe(4);
      expect(option.cost.monthly).toBe(4 * L4_MONTH);
      expect(option.cost).not.toHaveProperty('burstMonthly');
      expect(option.quota).toEqual({
        pool: 'l4-ondemand',
        nominal: 4,
        used: 0,
        requested: 4,
        remaining: 0,
        fits: true,
      });
      expect(option.verdict).toBe('allowed');
    }
  });

  it('reserves and prices the minimum under `minimum-plus-burst`, with what the burst adds and how much of it the quota has room for', () => {
    // The team already holds one of its four L4s: after this option's one replica, two are free for the three burst.
    const usage: TeamUsage = {
      reservedGpuUnits: { 'l4-ondemand': GPU_UNITS },
      committedMonthlyCost: L4_MONTH,
    };
    const option = onlyOption(
      quoteService(platform, autoscaled, usage, undefined, {
        autoscaledReplicas: 'minimum-plus-burst',
      }),
    );
    expect(option.replicas).toBe(1);
    expect(option.scaling).toEqual({
      basis: 'minimum-plus-burst',
      minReplicas: 1,
      maxReplicas: 4,
      burstReplicas: 3,
    });
    expect(option.gpuEquivalents).toBe(1);
    expect(option.cost.monthly).toBe(L4_MONTH);
    expect(option.cost.burstMonthly).toBe(3 * L4_MONTH);
    expect(option.quota).toEqual({
      pool: 'l4-ondemand',
      nominal: 4,
      used: 1,
      requested: 1,
      remaining: 2,
      fits: true,
      burstReplicasWithinQuota: 2,
    });
    expect(option.budget.requested).toBe(L4_MONTH);
    // The capacity behind the cost per 1,000 tokens is the priced replica's alone.
    const fixed = onlyOption(
      quoteService(platform, summariserOnDedicatedL4, usage),
    );
    expect(option.throughput.capacityTokensPerSecond).toBe(
      fixed.throughput.capacityTokensPerSecond,
    );
    expect(option.cost.costPerThousandTokens).toBe(
      fixed.cost.costPerThousandTokens,
    );
  });

  it('decides the verdict by the policy: the maximum beyond quota needs approval, the minimum does not', () => {
    const wide: ServiceRequest = {
      ...autoscaled,
      autoscaling: { ...autoscaled.autoscaling!, maxReplicas: 6 },
    };
    const atMaximum = onlyOption(
      quoteService(platform, wide, noUsage, undefined, {
        autoscaledReplicas: 'maximum',
      }),
    );
    expect(atMaximum.verdict).toBe('needs-approval');
    expect(atMaximum.reasons).toContain(
      'Needs 6 GPU-equivalents of pool l4-ondemand; team ml-platform has 4 of 4 left',
    );
    const atMinimum = onlyOption(
      quoteService(platform, wide, noUsage, undefined, {
        autoscaledReplicas: 'minimum-plus-burst',
      }),
    );
    expect(atMinimum.verdict).toBe('allowed');
    expect(atMinimum.scaling.burstReplicas).toBe(5);
    // Four L4s, one reserved: three of the five burst replicas can be admitted, the other two would wait.
    expect(atMinimum.quota.burstReplicasWithinQuota).toBe(3);
  });

  it('reserves the one replica that wakes a service scaled to zero under `minimum-plus-burst`', () => {
    const option = onlyOption(
      quoteService(
        platform,
        {
          ...autoscaled,
          autoscaling: { ...autoscaled.autoscaling!, minReplicas: 0 },
        },
        noUsage,
        undefined,
        { autoscaledReplicas: 'minimum-plus-burst' },
      ),
    );
    expect(option.replicas).toBe(1);
    expect(option.scaling).toMatchObject({
      basis: 'minimum-plus-burst',
      minReplicas: 0,
      burstReplicas: 3,
    });
    expect(option.cost.monthly).toBe(L4_MONTH);
  });

  it('refuses an autoscaling range that is not one', () => {
    for (const autoscaling of [
      { minReplicas: 3, maxReplicas: 2 },
      { minReplicas: 0, maxReplicas: 0 },
      { minReplicas: -1, maxReplicas: 2 },
      { minReplicas: 1, maxReplicas: 2.5 },
    ]) {
      expect(() =>
        quoteService(
          platform,
          {
            ...autoscaled,
            autoscaling: { ...autoscaled.autoscaling!, ...autoscaling },
          },
          noUsage,
        ),
      ).toThrow(
        /is not a range of whole numbers; allowed: minReplicas 0 or more/,
      );
    }
  });
});
