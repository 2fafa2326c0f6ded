import { renderInTestApp } from '@backstage/frontend-test-utils';
import { screen } from '@testing-library/react';
import {
  summariserUsage,
  usageWithoutMetrics,
} from '../../__testUtils__/gpuFixtures';
import { textContrastOnWhite } from '../../__testUtils__/contrast';
import { UsageFigures } from './UsageFigures';

describe('UsageFigures latency budget', () => {
  it('shows the measured p95 against the budget, in red when over it', async () => {
    await renderInTestApp(
      <UsageFigures
        usage={{
          ...summariserUsage(),
          latencyBudget: {
            budgetP95Seconds: 2,
            state: 'over',
            measuredP95Seconds: 4.2,
          },
        }}
      />,
    );
    const figure = screen.getByTestId('figure-latency');
    expect(figure).toHaveTextContent('4.20 s');
    expect(figure).toHaveTextContent(
      'p95 4.20 s, budget 2 s: over budget; p50 1.80 s',
    );
    // Red readable on white (4.5:1), not the theme error.main of Typography color="error" (3.7:1).
    expect(screen.getByText('4.20 s').className).toMatch(/error/i);
    expect(
      textContrastOnWhite(screen.getByText('4.20 s')),
    ).toBeGreaterThanOrEqual(4.5);
  });

  it('keeps the figure as before without a budget, and says within when kept', async () => {
    const { unmount } = await renderInTestApp(
      <UsageFigures usage={summariserUsage()} />,
    );
    expect(screen.getByTestId('figure-latency')).toHaveTextContent(
      /^Request latency p954\.20 sp50 1\.80 s$/,
    );
    expect(screen.getByText('4.20 s').className).not.toMatch(/error/i);
    unmount();

    await renderInTestApp(
      <UsageFigures
        usage={{
          ...summariserUsage(),
          latencyBudget: {
            budgetP95Seconds: 5,
            state: 'within',
            measuredP95Seconds: 4.2,
          },
        }}
      />,
    );
    expect(screen.getByTestId('figure-latency')).toHaveTextContent(
      'p95 4.20 s, budget 5 s: within budget',
    );
  });

  it('shows a budget with nothing measured, and why', async () => {
    await renderInTestApp(
      <UsageFigures
        usage={{
          ...usageWithoutMetrics({ state: 'unavailable' }),
          latencyBudget: {
            budgetP95Seconds: 2,
            state: 'unknown',
            unknownReason: 'metrics-unavailable',
          },
        }}
      />,
    );
    expect(screen.getByTestId('figure-latency')).toHaveTextContent(
      'not measured',
    );
    expect(screen.getByTestId('figure-latency')).toHaveTextContent(
      'p95 not measured, budget 2 s: metrics unavailable',
    );
  });

  it('says XID errors in a red readable on white', async () => {
    await renderInTestApp(
      <UsageFigures
        usage={{ ...summariserUsage(), xid: { errorSamples: 3, lastCode: 79 } }}
      />,
    );
    expect(
      textContrastOnWhite(screen.getByText('XID 79')),
    ).toBeGreaterThanOrEqual(4.5);
  });
});
