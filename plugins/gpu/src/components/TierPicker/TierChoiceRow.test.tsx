import { renderInTestApp } from '@backstage/frontend-test-utils';
import {
  demoPlatformConfig,
  parsePlatform,
  quoteService,
  validateServiceRequest,
} from '@gpu-platform/backstage-plugin-gpu-common';
import Table from '@material-ui/core/Table';
import TableBody from '@material-ui/core/TableBody';
import { screen } from '@testing-library/react';
import { textContrastOnWhite } from '../../__testUtils__/contrast';
import { demoChoice, demoQuote } from './__testUtils__/demoQuotes';
import { ChoiceDetails } from './ChoiceDetails';
import { TierChoiceRow } from './TierChoiceRow';

const summariserOnL4 = {
  name: 'summariser',
  team: 'ml-platform',
  model: 'llama-3.1-8b',
  runtime: 'vllm',
  maxModelLen: 8192,
  concurrency: 16,
  replicas: 1,
  environment: 'dev',
  tier: 'dedicated',
  pool: 'l4-ondemand',
};

async function renderL4Row(request: Record<string, unknown>) {
  const { choice, detail } = demoChoice(
    demoQuote(request),
    'dedicated/l4-ondemand',
  );
  // The row, and what the picker says of it under the table once it is chosen (its full option fetched).
  await renderInTestApp(
    <>
      <Table>
        <TableBody>
          <TierChoiceRow
            choice={choice}
            detail={detail}
            selected={false}
            onSelect={() => {}}
          />
        </TableBody>
      </Table>
      <ChoiceDetails choice={choice} detail={detail} />
    </>,
  );
}

describe('TierChoiceRow token prices', () => {
  it('keeps the token prices and their basis out of the row: one line of figures, said once under the table', async () => {
    const { choice, detail } = demoChoice(
      demoQuote(summariserOnL4),
      'dedicated/l4-ondemand',
    );
    await renderInTestApp(
      <Table>
        <TableBody>
          <TierChoiceRow
            choice={choice}
            detail={detail}
            selected
            onSelect={() => {}}
          />
        </TableBody>
      </Table>,
    );
    const row = screen.getByTestId('tier-choice-dedicated/l4-ondemand');
    expect(row).not.toHaveTextContent('/ 1M in');
    expect(row).not.toHaveTextContent('700 in + 300 out');
    // The per-1K figure says the load it assumes: no demand given, the GPU busy all the time.
    expect(screen.getByTestId('tier-choice-token-basis')).toHaveTextContent(
      'estimate, at full load',
    );
  });

  it('says the load a given demand puts on the slice', async () => {
    await renderL4Row({
      ...summariserOnL4,
      expectedTokensPerSecond: 600,
      measuredTokensPerSecond: 1500,
    });
    expect(screen.getByTestId('tier-choice-token-basis')).toHaveTextContent(
      'measured, at 40% load',
    );
  });

  it('labels a measured capacity as measured, with the report summariser’s 40% and its prices', async () => {
    await renderL4Row({
      ...summariserOnL4,
      expectedTokensPerSecond: 600,
      measuredTokensPerSecond: 1500,
    });
    // L4 on demand: 0.8048 USD/h. At 600 tokens/s: 804,800 x 1,000 / 2,160,000 = 372.59 micro-dollars per 1K;
    // 804,800 / 2,160,000 x 300/370 x 1e6 = 302,102 per 1M out, a tenth of it in; 804,800 x 300 / 2,160,000 = 112.
    expect(screen.getByText('$0.000373')).toBeInTheDocument();
    expect(screen.getByTestId('tier-choice-token-prices')).toHaveTextContent(
      '$0.0302 / 1M in · $0.3021 / 1M out · $0.000112 / request',
    );
    expect(
      screen.getByTestId('tier-choice-throughput-basis'),
    ).toHaveTextContent(
      'Measured: 1,500 tokens/s capacity, 600 tokens/s demand (40% used); 700 in + 300 out tokens per request, an input token at 1/10 of an output token',
    );
  });

  it('labels the bandwidth figure as an estimate', async () => {
    await renderL4Row(summariserOnL4);
    expect(
      screen.getByTestId('tier-choice-throughput-basis').textContent,
    ).toMatch(
      /^Estimate: [\d,]+ tokens\/s capacity from memory bandwidth, fully used; 700 in \+ 300 out tokens per request/,
    );
    expect(screen.getByTestId('tier-choice-token-prices').textContent).toMatch(
      /^\$\d+\.\d{4} \/ 1M in · \$\d+\.\d{4} \/ 1M out · \$\d+\.\d{6} \/ request$/,
    );
  });
});

describe('TierChoiceRow from the summary alone', () => {
  it('shows the figures of the summary, and the reasons and token basis only once the row’s full option is there', async () => {
    const quote = demoQuote({
      ...summariserOnL4,
      tier: undefined,
      pool: undefined,
    });
    const { choice, detail } = demoChoice(quote, 'dedicated/spot-l4');
    expect(detail!.verdict).toBe('needs-approval');
    await renderInTestApp(
      <Table>
        <TableBody>
          <TierChoiceRow choice={choice} selected={false} onSelect={() => {}} />
        </TableBody>
      </Table>,
    );
    const row = screen.getByTestId('tier-choice-dedicated/spot-l4');
    expect(row).toHaveTextContent('Needs approval');
    expect(row).toHaveTextContent('1 x L4 per replica');
    expect(row).toHaveTextContent('over by 1 (0 of 0 free)');
    expect(screen.getByTestId('tier-choice-spot')).toBeInTheDocument();
    expect(row).not.toHaveTextContent(detail!.reasons[0]);
    expect(
      screen.queryByTestId('tier-choice-token-basis'),
    ).not.toBeInTheDocument();
  });
});

describe('TierChoiceRow capacity', () => {
  it('says how many full-length sequences the slice holds at once', async () => {
    // An L4 at 0.90 leaves 6.1 GB of KV cache; an 8,192-token sequence of Llama-3.1-8B takes 1 GiB: 5 fit.
    await renderL4Row(summariserOnL4);
    expect(screen.getByTestId('tier-choice-sequences')).toHaveTextContent(
      '5 full-length sequences at once',
    );
  });

  it('names the running service a measured capacity came from', async () => {
    const { choice, detail } = demoChoice(
      demoQuote({ ...summariserOnL4, expectedTokensPerSecond: 600 }),
      'dedicated/l4-ondemand',
    );
    const measured = {
      ...detail!,
      throughput: {
        ...detail!.throughput,
        capacityBasis: 'measured' as const,
        capacityTokensPerSecond: 1500,
        utilisation: 0.4,
        measuredBy: {
          serviceId: '8d0f7a52-3c1e-4b9a-9f2d-6e5c4b3a2d10',
          service: 'writer',
          windowStart: '2026-11-08T12:00:00.000Z',
          windowEnd: '2026-11-15T12:00:00.000Z',
        },
      },
    };
    await renderInTestApp(<ChoiceDetails choice={choice} detail={measured} />);
    expect(
      screen.getByTestId('tier-choice-throughput-basis'),
    ).toHaveTextContent(
      'Measured: 1,500 tokens/s capacity (measured on writer), 600 tokens/s demand (40% used)',
    );
  });

  it('marks a measured capacity’s cost per token as measured, not as an estimate', async () => {
    await renderL4Row({ ...summariserOnL4, measuredTokensPerSecond: 1500 });
    expect(screen.getByTestId('tier-choice-token-basis')).toHaveTextContent(
      /^measured, at full load$/,
    );
  });
});

/**
 * The background colour the cascade gives `element`: of the style rules that match it and set one, the most specific
 * (classes and pseudo-classes counted; the later on a tie). jsdom's getComputedStyle ignores specificity.
 */
function cascadedBackground(element: Element): string | undefined {
  let best: { specificity: number; value: string } | undefined;
  for (const sheet of Array.from(document.styleSheets)) {
    for (const rule of Array.from(sheet.cssRules)) {
      if (!(rule instanceof CSSStyleRule)) continue;
      const value = rule.style.getPropertyValue('background-color');
      if (!value) continue;
      for (const selector of rule.selectorText.split(',')) {
        const plain = selector.trim().replace(/:hover/g, '');
        if (!element.matches(plain)) continue;
        const specificity = (selector.match(/[.:]/g) ?? []).length;
        if (!best || specificity >= best.specificity) {
          best = { specificity, value };
        }
      }
    }
  }
  return best?.value;
}

describe('TierChoiceRow selection', () => {
  it('marks the chosen row in the primary colour, not the pink of an error', async () => {
    const { choice } = demoChoice(
      demoQuote(summariserOnL4),
      'dedicated/l4-ondemand',
    );
    await renderInTestApp(
      <Table>
        <TableBody>
          <TierChoiceRow choice={choice} selected onSelect={() => {}} />
        </TableBody>
      </Table>,
    );
    const row = screen.getByTestId('tier-choice-dedicated/l4-ondemand');
    const background = cascadedBackground(row)!;
    const [r, g, b] = background.match(/\d+(\.\d+)?/g)!.map(Number);
    // Backstage's primary is blue; its secondary, MUI's selected row colour, is pink.
    expect(b).toBeGreaterThan(r);
    expect(b).toBeGreaterThan(g);
  });
});

describe('TierChoiceRow allocation', () => {
  /** The demo platform with the MPS pool asking for DRA, and the L4 pool served through it. */
  function draQuote(request: Record<string, unknown>) {
    const config = JSON.parse(JSON.stringify(demoPlatformConfig));
    for (const pool of config.pools) {
      if (pool.name === 'l4-mps' || pool.name === 'l4-ondemand') {
        pool.allocation = 'dra';
      }
      if (pool.name === 'a100-mig') {
        pool.allocation = 'dra';
        pool.sharing = {
          type: 'mig',
          partitioning: 'dynamic',
          layout: { '1g.10gb': 7, '3g.40gb': 2 },
        };
      }
    }
    const platform = parsePlatform(config);
    return {
      platform,
      quote: quoteService(platform, validateServiceRequest(platform, request), {
        reservedGpuUnits: {},
        committedMonthlyCost: 0,
      }),
    };
  }

  async function renderRow(key: string) {
    const { platform, quote } = draQuote({
      ...summariserOnL4,
      tier: undefined,
      pool: undefined,
    });
    const { choice } = demoChoice(quote, key, platform);
    await renderInTestApp(
      <Table>
        <TableBody>
          <TierChoiceRow choice={choice} selected={false} onSelect={() => {}} />
        </TableBody>
      </Table>,
    );
  }

  it('says a DRA pool claims its GPUs through DRA', async () => {
    await renderRow('dedicated/l4-ondemand');
    expect(screen.getByTestId('tier-choice-allocation')).toHaveTextContent(
      'GPUs claimed through Dynamic Resource Allocation',
    );
  });

  it('says which MIG profiles a dynamic MIG pool carves on demand', async () => {
    await renderRow('mig/a100-mig');
    expect(screen.getByTestId('tier-choice-allocation')).toHaveTextContent(
      /^GPUs claimed through Dynamic Resource Allocation; dynamic MIG: the NVIDIA DRA driver carves 1g\.10gb \(14 SMs\), 3g\.40gb \(42 SMs\) on demand on each A100-80GB/,
    );
  });

  it('says why an MPS pool asked to use DRA stays on the device plugin', async () => {
    await renderRow('mps/l4-mps');
    expect(screen.getByTestId('tier-choice-allocation')).toHaveTextContent(
      /^Not through DRA: the MPS tier is served by the device plugin: .*Kueue refuses to admit/,
    );
  });

  it('says nothing of allocation on a device-plugin pool', async () => {
    await renderL4Row(summariserOnL4);
    expect(
      screen.queryByTestId('tier-choice-allocation'),
    ).not.toBeInTheDocument();
  });
});

describe('TierChoiceRow verdict', () => {
  it('says "Not allowed" in a red readable on white (4.5:1), not the theme error.main (3.7:1)', async () => {
    const { choice } = demoChoice(
      demoQuote(summariserOnL4),
      'dedicated/l4-ondemand',
    );
    // A tier the policy forbids (an option a quote lists with that verdict).
    const forbidden = {
      ...choice,
      option: { ...choice.option!, verdict: 'forbidden' as const },
    };
    await renderInTestApp(
      <Table>
        <TableBody>
          <TierChoiceRow
            choice={forbidden}
            selected={false}
            onSelect={() => {}}
          />
        </TableBody>
      </Table>,
    );
    expect(
      textContrastOnWhite(screen.getByText('Not allowed')),
    ).toBeGreaterThanOrEqual(4.5);
  });
});
