import { renderInTestApp } from '@backstage/frontend-test-utils';
import { screen, within } from '@testing-library/react';
import { summariserCost } from '../../__testUtils__/gpuFixtures';
import { TokenFigures } from './TokenFigures';

describe('TokenFigures', () => {
  it('shows the measured throughput and token prices, labelled measured', async () => {
    const cost = summariserCost();
    await renderInTestApp(
      <TokenFigures
        cost={{
          ...cost,
          throughput: {
            basis: 'measured',
            tokensPerSecondPerReplica: 1500,
            replicas: 1,
            capacityTokensPerSecond: 1500,
            measuredBy: {
              serviceId: cost.serviceId,
              service: cost.name,
              windowStart: cost.window.start,
              windowEnd: cost.window.end,
            },
          },
          tokenCosts: {
            basis: 'measured',
            promptTokens: 302_400_000,
            generatedTokens: 129_600_000,
            requests: 432_000,
            costPerMillionInputTokensMicros: 12_084,
            costPerMillionOutputTokensMicros: 120_841,
            costPerThousandOutputTokensMicros: 149,
            costPerRequestMicros: 45,
            inputOutputSplit: {
              basis: 'measured',
              prefillSeconds: 21_600,
              decodeSeconds: 194_400,
            },
          },
        }}
      />,
    );
    const throughput = screen.getByTestId('figure-throughput');
    expect(
      within(throughput).getByText('Sustained throughput (measured)'),
    ).toBeInTheDocument();
    expect(within(throughput).getByText('1,500 tokens/s')).toBeInTheDocument();
    expect(
      within(screen.getByTestId('figure-per-request')).getByText('$0.000045'),
    ).toBeInTheDocument();
    expect(
      screen.getByText('Output price per 1M tokens (measured)'),
    ).toBeInTheDocument();
    expect(
      within(screen.getByTestId('figure-per-million-input')).getByText(
        /split by GPU time: 10% prefill, 90% decode/,
      ),
    ).toBeInTheDocument();
  });

  it('labels the input and output prices of a service without prefill/decode histograms as an assumption', async () => {
    const cost = summariserCost();
    await renderInTestApp(
      <TokenFigures
        cost={{
          ...cost,
          tokenCosts: {
            basis: 'measured',
            promptTokens: 302_400_000,
            generatedTokens: 129_600_000,
            costPerMillionInputTokensMicros: 12_084,
            costPerMillionOutputTokensMicros: 120_841,
            inputOutputSplit: { basis: 'assumed', inputTokenWeight: 0.1 },
          },
        }}
      />,
    );
    const input = screen.getByTestId('figure-per-million-input');
    expect(
      within(input).getByText(
        'Input price per 1M tokens (measured, assumed split)',
      ),
    ).toBeInTheDocument();
    expect(
      within(input).getByText(
        /assumed split: an input token costs 1\/10 of an output token/,
      ),
    ).toBeInTheDocument();
  });

  it('shows self-hosted $/1M next to the managed API and the crossover in requests a day', async () => {
    const cost = summariserCost();
    await renderInTestApp(
      <TokenFigures
        cost={{
          ...cost,
          managedApi: {
            api: {
              name: 'Hosted Llama',
              inputPerMillionMicros: 200_000,
              outputPerMillionMicros: 600_000,
            },
            selfHostedInputPerMillionMicros: 6_387,
            selfHostedOutputPerMillionMicros: 134_133,
            request: { inputTokens: 700, outputTokens: 300, basis: 'measured' },
            managedCostPerRequestMicros: 320,
            selfHostedDailyMicros: 38_630_400,
            crossoverRequestsPerDay: 120_720,
          },
        }}
      />,
    );
    const figure = screen.getByTestId('figure-managed-api');
    expect(
      within(figure).getByText(
        'Versus Hosted Llama (per 1M input / output tokens)',
      ),
    ).toBeInTheDocument();
    expect(
      within(figure).getByText(
        '$0.006387 / $0.1341 self-hosted, $0.2000 / $0.6000 API',
      ),
    ).toBeInTheDocument();
    expect(
      within(figure).getByText(
        'self-hosting costs less from 120,720 requests/day ($38.63 a day of GPUs; 700 + 300 tokens a request, measured)',
      ),
    ).toBeInTheDocument();
  });

  it('renders nothing without throughput or token costs', async () => {
    const cost = summariserCost();
    await renderInTestApp(
      <TokenFigures
        cost={{ ...cost, throughput: undefined, tokenCosts: undefined }}
      />,
    );
    expect(screen.queryByTestId('token-figures')).toBeNull();
  });

  it('says a dry run spent nothing to price its measured tokens instead of $0 prices', async () => {
    const cost = summariserCost();
    await renderInTestApp(
      <TokenFigures
        cost={{
          ...cost,
          accrualBasis: 'dry-run',
          allocationMicros: 0,
          throughput: {
            basis: 'measured',
            tokensPerSecondPerReplica: 550,
            replicas: 1,
            capacityTokensPerSecond: 550,
            measuredBy: {
              serviceId: cost.serviceId,
              service: cost.name,
              windowStart: cost.window.start,
              windowEnd: cost.window.end,
            },
          },
          // What the backend answers for a dry run's measured tokens: its window cost, zero, divided.
          tokenCosts: {
            basis: 'measured',
            promptTokens: 95_000_000,
            generatedTokens: 47_500_000,
            requests: 158_000,
            costPerMillionInputTokensMicros: 0,
            costPerMillionOutputTokensMicros: 0,
            costPerThousandOutputTokensMicros: 0,
            costPerRequestMicros: 0,
            inputOutputSplit: { basis: 'assumed', inputTokenWeight: 0.1 },
          },
          managedApi: {
            api: {
              name: 'Hosted Llama',
              inputPerMillionMicros: 200_000,
              outputPerMillionMicros: 600_000,
            },
            selfHostedInputPerMillionMicros: 0,
            selfHostedOutputPerMillionMicros: 0,
            selfHostedDailyMicros: 0,
            managedCostPerRequestMicros: 300,
            request: { inputTokens: 600, outputTokens: 300, basis: 'measured' },
          },
        }}
      />,
    );
    expect(screen.getByTestId('figure-throughput')).toHaveTextContent(
      '550 tokens/s',
    );
    expect(screen.getByTestId('figure-token-prices-dry-run')).toHaveTextContent(
      'Token prices (measured)none: nothing spenta dry run spends nothing',
    );
    expect(screen.getByTestId('token-figures')).not.toHaveTextContent('$0.0');
    expect(screen.queryByTestId('figure-per-million-input')).toBeNull();
    expect(screen.queryByTestId('figure-managed-api')).toBeNull();
  });
});
