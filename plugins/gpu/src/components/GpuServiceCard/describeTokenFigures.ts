import {
  formatUsd,
  ServiceCost,
  UsdMicros,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { formatRate, formatTime } from '../common';

/** One labelled figure of the card: its label, value and the line saying what it rests on. */
export interface DescribedFigure {
  testId: string;
  label: string;
  value: string;
  caption: string;
}

/** A unit price: six decimals below a cent (`$0.000746`), else four. */
function unitPrice(micros: UsdMicros | undefined): string {
  if (micros === undefined) return '-';
  return formatUsd(micros, { decimals: Math.abs(micros) < 10_000 ? 6 : 4 });
}

/** A token count in millions or thousands: `604.8M`, `12.5K`, `950`. */
export function formatTokens(count: number): string {
  if (count >= 1e6) return `${formatRate(count / 1e6)}M`;
  if (count >= 1e3) return `${formatRate(count / 1e3)}K`;
  return String(Math.round(count));
}

/** The sustained throughput of the replicas, measured (from which service, over which window) or estimated. */
export function describeThroughput(
  cost: ServiceCost,
): DescribedFigure | undefined {
  const throughput = cost.throughput;
  if (!throughput) return undefined;
  const perReplica = `${formatRate(
    throughput.tokensPerSecondPerReplica,
  )} tokens/s`;
  const value =
    throughput.replicas > 1
      ? `${perReplica} x ${throughput.replicas}`
      : perReplica;
  let caption = 'estimate from memory bandwidth (no measurement yet)';
  const by = throughput.measuredBy;
  if (throughput.basis === 'measured' && by) {
    caption =
      by.serviceId === cost.serviceId
        ? `measured: sustained (p90 of busy 5-minute rates) over ${cost.window.label}`
        : `measured on ${by.service} (same model and slice), ${formatTime(
            by.windowStart,
          )} to ${formatTime(by.windowEnd)}`;
  }
  return {
    testId: 'figure-throughput',
    label: `Sustained throughput (${throughput.basis})`,
    value,
    caption,
  };
}

function requestCaption(cost: ServiceCost): string {
  const tokens = cost.tokenCosts!;
  if (tokens.basis === 'estimated')
    return 'a request of 700 prompt + 300 output tokens';
  if (tokens.requests === undefined)
    return 'vLLM reported no completed requests';
  return `${formatTokens(tokens.requests)} requests completed in ${
    cost.window.label
  }`;
}

/**
 * Cost per 1M input and output tokens and per request, labelled measured (from the window's token and request
 * counts) or estimated (at the capacity fully busy, with 700 + 300 token requests).
 */
export function describeTokenCosts(cost: ServiceCost): DescribedFigure[] {
  const tokens = cost.tokenCosts;
  if (!tokens) return [];
  const measured = tokens.basis === 'measured';
  const basis = measured
    ? `${formatTokens(tokens.promptTokens ?? 0)} prompt + ${formatTokens(
        tokens.generatedTokens ?? 0,
      )} output tokens in ${cost.window.label}`
    : `at ${formatRate(
        tokens.capacityTokensPerSecond ?? 0,
      )} tokens/s fully busy`;
  const weight = 'an input token costs 1/10 of an output token';
  // The measured per-1,000 figure is the cost section's; an estimate stands in for it when nothing was measured.
  const perThousand: DescribedFigure[] = measured
    ? []
    : [
        {
          testId: 'figure-per-thousand-estimated',
          label: 'Per 1,000 output tokens (estimated)',
          value: unitPrice(tokens.costPerThousandOutputTokensMicros),
          caption: basis,
        },
      ];
  return [
    ...perThousand,
    {
      testId: 'figure-per-million-input',
      label: `Per 1M input tokens (${tokens.basis})`,
      value: unitPrice(tokens.costPerMillionInputTokensMicros),
      caption: `${basis}; ${weight}`,
    },
    {
      testId: 'figure-per-million-output',
      label: `Per 1M output tokens (${tokens.basis})`,
      value: unitPrice(tokens.costPerMillionOutputTokensMicros),
      caption: basis,
    },
    {
      testId: 'figure-per-request',
      label: `Per request (${tokens.basis})`,
      value: unitPrice(tokens.costPerRequestMicros),
      caption: requestCaption(cost),
    },
  ];
}
