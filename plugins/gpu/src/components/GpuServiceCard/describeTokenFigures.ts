import {
  formatUsd,
  ServiceCost,
  ServiceTokenCosts,
  UsdMicros,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { formatPercent, formatRate, formatTime } from '../common';

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

/**
 * A cost per 1,000 output tokens (micro-dollars, as the API gives it) shown per 1M output tokens, so that every
 * token price of the card has one unit: to the dollar's thousandth, the precision the micro-dollars per 1,000 carry
 * (69 micro-dollars per 1,000 is `$0.069`); a cost that rounds to nothing is `< $0.001`.
 */
export function perMillionFromPerThousand(micros: UsdMicros): string {
  if (micros === 0) return '< $0.001';
  return formatUsd(micros * 1000, { decimals: 3 });
}

/**
 * The label of the whole cost per 1M output tokens: all of the cost on the output tokens, input tokens free; with
 * its basis on the card, without in the governance page's Cost leaderboard (always measured there).
 */
export function wholeCostLabel(basis?: 'measured' | 'at full load'): string {
  return `Whole cost per 1M output tokens${basis ? ` (${basis})` : ''}`;
}

/**
 * The card shows one whole cost per output token: the cost section's, measured from the window's tokens, or, when
 * nothing was measured, the token figures' estimate at full load in its place (never both, never a `-` beside an
 * estimate).
 */
export function perThousandIsEstimated(cost: ServiceCost): boolean {
  const tokens = cost.tokenCosts;
  return (
    cost.costPerThousandTokensMicros === undefined &&
    tokens !== undefined &&
    tokens.basis !== 'measured' &&
    tokens.costPerThousandOutputTokensMicros !== undefined
  );
}

/**
 * A dry run spends nothing, so prices measured from its window's tokens would divide a cost of zero ("$0.000000 per
 * 1M tokens"): true of the dry run, misleading as the price of serving the model. The card says so instead of
 * showing them (estimates at full load, priced at the GPUs' hourly price, stay).
 */
export function describeDryRunTokenPrices(
  cost: ServiceCost,
): DescribedFigure | undefined {
  if (cost.accrualBasis !== 'dry-run' || cost.tokenCosts?.basis !== 'measured')
    return undefined;
  return {
    testId: 'figure-token-prices-dry-run',
    label: 'Token prices (measured)',
    value: 'none: nothing spent',
    caption:
      'a dry run spends nothing, so its measured tokens have no cost to divide; the tier picker quotes prices at full load',
  };
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

/**
 * How the input and output prices divide the cost, from the typed `inputOutputSplit`: measured by prefill and decode
 * time (their shares), or the assumption of the input token's weight (1/10 when the backend does not say).
 */
export function describeSplit(tokens: ServiceTokenCosts): {
  measured: boolean;
  text: string;
} {
  const split = tokens.inputOutputSplit;
  if (split?.basis === 'measured') {
    const total = split.prefillSeconds + split.decodeSeconds;
    const share = (seconds: number) =>
      formatPercent(total > 0 ? seconds / total : 0);
    return {
      measured: true,
      text: `split by GPU time: ${share(split.prefillSeconds)} prefill, ${share(
        split.decodeSeconds,
      )} decode`,
    };
  }
  const weight = split?.inputTokenWeight ?? 0.1;
  const fraction =
    weight > 0 && Number.isInteger(1 / weight)
      ? `1/${1 / weight}`
      : formatRate(weight);
  return {
    measured: false,
    text: `assumed split: an input token costs ${fraction} of an output token (no prefill/decode time measured)`,
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
 * counts) or at full load (the capacity fully busy, with 700 + 300 token requests). The input and output prices
 * divide the cost between input and output tokens and say whether that split was measured (prefill and decode time)
 * or is the labelled assumption; the whole cost per 1M output tokens (when it stands in for the cost section's) puts
 * all of it on output tokens, so the two output figures differ and their labels say how.
 */
export function describeTokenCosts(cost: ServiceCost): DescribedFigure[] {
  const tokens = cost.tokenCosts;
  if (!tokens) return [];
  const measured = tokens.basis === 'measured';
  const basisWords = measured ? 'measured' : 'at full load';
  const basis = measured
    ? `${formatTokens(tokens.promptTokens ?? 0)} prompt + ${formatTokens(
        tokens.generatedTokens ?? 0,
      )} output tokens in ${cost.window.label}`
    : `at ${formatRate(
        tokens.capacityTokensPerSecond ?? 0,
      )} tokens/s fully busy`;
  const split = describeSplit(tokens);
  const splitBasis = split.measured
    ? basisWords
    : `${basisWords}, assumed split`;
  const splitCaption = `${basis}; the cost divided between input and output, ${split.text}`;
  // The measured whole cost is the cost section's; an estimate stands in for it when nothing was measured.
  const perThousand: DescribedFigure[] = !perThousandIsEstimated(cost)
    ? []
    : [
        {
          testId: 'figure-per-thousand-estimated',
          label: wholeCostLabel('at full load'),
          value: perMillionFromPerThousand(
            tokens.costPerThousandOutputTokensMicros!,
          ),
          caption: `${basis}; all of the cost on output tokens`,
        },
      ];
  return [
    ...perThousand,
    {
      testId: 'figure-per-million-input',
      label: `Input price per 1M tokens (${splitBasis})`,
      value: unitPrice(tokens.costPerMillionInputTokensMicros),
      caption: splitCaption,
    },
    {
      testId: 'figure-per-million-output',
      label: `Output price per 1M tokens (${splitBasis})`,
      value: unitPrice(tokens.costPerMillionOutputTokensMicros),
      caption: splitCaption,
    },
    {
      testId: 'figure-per-request',
      label: `Per request (${basisWords})`,
      value: unitPrice(tokens.costPerRequestMicros),
      caption: requestCaption(cost),
    },
  ];
}

/**
 * The service against the configured managed API: its own price per 1M input / output tokens next to the API's, and
 * the requests a day from which self-hosting costs less, with the request shape it rests on (measured or assumed).
 */
export function describeManagedApi(
  cost: ServiceCost,
): DescribedFigure | undefined {
  const comparison = cost.managedApi;
  if (!comparison) return undefined;
  const { api, request } = comparison;
  const pair = (input: UsdMicros | undefined, output: UsdMicros | undefined) =>
    `${unitPrice(input)} / ${unitPrice(output)}`;
  const crossover =
    comparison.crossoverRequestsPerDay !== undefined
      ? `self-hosting costs less from ${comparison.crossoverRequestsPerDay.toLocaleString(
          'en-US',
        )} requests/day`
      : 'the API charges nothing per request';
  return {
    testId: 'figure-managed-api',
    label: `Versus ${api.name} (per 1M input / output tokens)`,
    value: `${pair(
      comparison.selfHostedInputPerMillionMicros,
      comparison.selfHostedOutputPerMillionMicros,
    )} self-hosted, ${pair(
      api.inputPerMillionMicros,
      api.outputPerMillionMicros,
    )} API`,
    caption: `${crossover} (${formatUsd(
      comparison.selfHostedDailyMicros,
    )} a day of GPUs; ${formatTokens(request.inputTokens)} + ${formatTokens(
      request.outputTokens,
    )} tokens a request, ${request.basis})`,
  };
}
