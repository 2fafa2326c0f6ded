import { ServiceCost } from '@gpu-platform/backstage-plugin-gpu-common';
import { summariserCost } from '../../__testUtils__/gpuFixtures';
import {
  describeThroughput,
  describeTokenCosts,
  formatTokens,
} from './describeTokenFigures';

function cost(extra: Partial<ServiceCost>): ServiceCost {
  return { ...summariserCost(), ...extra };
}

describe('describeThroughput', () => {
  it("labels the service's own measurement with its window", () => {
    const base = summariserCost();
    expect(
      describeThroughput(
        cost({
          throughput: {
            basis: 'measured',
            tokensPerSecondPerReplica: 1500,
            replicas: 2,
            capacityTokensPerSecond: 3000,
            measuredBy: {
              serviceId: base.serviceId,
              service: base.name,
              windowStart: base.window.start,
              windowEnd: base.window.end,
            },
          },
        }),
      ),
    ).toEqual({
      testId: 'figure-throughput',
      label: 'Sustained throughput (measured)',
      value: '1,500 tokens/s x 2',
      caption: `measured: sustained (p90 of busy 5-minute rates) over ${base.window.label}`,
    });
  });

  it('names the service a same-shape measurement came from, and says when it is an estimate', () => {
    expect(
      describeThroughput(
        cost({
          throughput: {
            basis: 'measured',
            tokensPerSecondPerReplica: 1200,
            replicas: 1,
            capacityTokensPerSecond: 1200,
            measuredBy: {
              serviceId: 'another-id',
              service: 'writer',
              windowStart: '2026-11-08T12:00:00.000Z',
              windowEnd: '2026-11-15T12:00:00.000Z',
            },
          },
        }),
      )!.caption,
    ).toBe(
      'measured on writer (same model and slice), 2026-11-08 12:00 UTC to 2026-11-15 12:00 UTC',
    );
    expect(
      describeThroughput(
        cost({
          throughput: {
            basis: 'estimated',
            tokensPerSecondPerReplica: 512.4,
            replicas: 1,
            capacityTokensPerSecond: 512.4,
          },
        }),
      ),
    ).toMatchObject({
      label: 'Sustained throughput (estimated)',
      value: '512 tokens/s',
      caption: 'estimate from memory bandwidth (no measurement yet)',
    });
    expect(describeThroughput(cost({ throughput: undefined }))).toBeUndefined();
  });
});

describe('describeTokenCosts', () => {
  it('shows measured prices split by measured prefill and decode time', () => {
    const figures = describeTokenCosts(
      cost({
        tokenCosts: {
          basis: 'measured',
          promptTokens: 604_800_000,
          generatedTokens: 259_200_000,
          requests: 864_000,
          costPerMillionInputTokensMicros: 6_387,
          costPerMillionOutputTokensMicros: 134_133,
          costPerThousandOutputTokensMicros: 149,
          costPerRequestMicros: 45,
          inputOutputSplit: {
            basis: 'measured',
            prefillSeconds: 43_200,
            decodeSeconds: 388_800,
          },
        },
      }),
    );
    const label = summariserCost().window.label;
    expect(figures.slice(0, 2)).toEqual([
      {
        testId: 'figure-per-million-input',
        label: 'Input price per 1M tokens (measured)',
        value: '$0.006387',
        caption: `605M prompt + 259M output tokens in ${label}; the cost divided between input and output, split by GPU time: 10% prefill, 90% decode`,
      },
      {
        testId: 'figure-per-million-output',
        label: 'Output price per 1M tokens (measured)',
        value: '$0.1341',
        caption: `605M prompt + 259M output tokens in ${label}; the cost divided between input and output, split by GPU time: 10% prefill, 90% decode`,
      },
    ]);
  });

  it('labels the split of measured tokens without prefill/decode time as an assumption', () => {
    const figures = describeTokenCosts(
      cost({
        tokenCosts: {
          basis: 'measured',
          promptTokens: 604_800_000,
          generatedTokens: 259_200_000,
          requests: 864_000,
          costPerMillionInputTokensMicros: 12_084,
          costPerMillionOutputTokensMicros: 120_841,
          costPerThousandOutputTokensMicros: 149,
          costPerRequestMicros: 45,
          inputOutputSplit: { basis: 'assumed', inputTokenWeight: 0.1 },
        },
      }),
    );
    const label = summariserCost().window.label;
    const assumed =
      'assumed split: an input token costs 1/10 of an output token (no prefill/decode time measured)';
    expect(figures).toEqual([
      {
        testId: 'figure-per-million-input',
        label: 'Input price per 1M tokens (measured, assumed split)',
        value: '$0.0121',
        caption: `605M prompt + 259M output tokens in ${label}; the cost divided between input and output, ${assumed}`,
      },
      {
        testId: 'figure-per-million-output',
        label: 'Output price per 1M tokens (measured, assumed split)',
        value: '$0.1208',
        caption: `605M prompt + 259M output tokens in ${label}; the cost divided between input and output, ${assumed}`,
      },
      {
        testId: 'figure-per-request',
        label: 'Per request (measured)',
        value: '$0.000045',
        caption: `864K requests completed in ${label}`,
      },
    ]);
  });

  it('labels estimated prices with the capacity and request shape they assume', () => {
    const estimated = {
      basis: 'estimated' as const,
      capacityTokensPerSecond: 1500,
      costPerMillionInputTokensMicros: 5_556,
      costPerMillionOutputTokensMicros: 55_556,
      costPerThousandOutputTokensMicros: 69,
      costPerRequestMicros: 21,
    };
    // A measured whole cost per output token is the cost section's figure: no estimate beside it.
    expect(
      describeTokenCosts(cost({ tokenCosts: estimated })).map(f => f.label),
    ).not.toContain('Whole cost per 1M output tokens (at full load)');
    const figures = describeTokenCosts(
      cost({
        costPerThousandTokensMicros: undefined,
        tokenCosts: {
          basis: 'estimated',
          capacityTokensPerSecond: 1500,
          costPerMillionInputTokensMicros: 5_556,
          costPerMillionOutputTokensMicros: 55_556,
          costPerThousandOutputTokensMicros: 69,
          costPerRequestMicros: 21,
        },
      }),
    );
    expect(figures.map(f => f.label)).toEqual([
      'Whole cost per 1M output tokens (at full load)',
      'Input price per 1M tokens (at full load, assumed split)',
      'Output price per 1M tokens (at full load, assumed split)',
      'Per request (at full load)',
    ]);
    // Every token price in one unit (per 1M): the whole cost puts all of it on output tokens ($0.000069 per 1,000
    // is $0.069 per 1M), the output price only its share after the split ($0.0556), and the captions say so.
    expect(figures[0].value).toBe('$0.069');
    expect(figures[0].caption).toBe(
      'at 1,500 tokens/s fully busy; all of the cost on output tokens',
    );
    expect(figures[2].value).toBe('$0.0556');
    expect(figures[2].caption).toBe(
      'at 1,500 tokens/s fully busy; the cost divided between input and output, assumed split: an input token costs 1/10 of an output token (no prefill/decode time measured)',
    );
    expect(figures.map(f => f.label).join(' ')).not.toMatch(/1,000/);
    expect(figures[3].caption).toBe(
      'a request of 700 prompt + 300 output tokens',
    );
    expect(describeTokenCosts(cost({ tokenCosts: undefined }))).toEqual([]);
  });
});

describe('formatTokens', () => {
  it('shortens millions and thousands', () => {
    expect(formatTokens(604_800_000)).toBe('605M');
    expect(formatTokens(12_500)).toBe('12.5K');
    expect(formatTokens(950)).toBe('950');
  });
});
