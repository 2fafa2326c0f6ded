import { configure, screen, waitFor, within } from '@testing-library/react';
import { FakeGpuApi } from '../../__testUtils__/FakeGpuApi';
import { teamQuota } from '../../__testUtils__/gpuFixtures';
import { renderWithGpuApis } from '../../__testUtils__/renderWithGpuApis';
import { PoolSubscriptionSection } from './PoolSubscriptionSection';

jest.setTimeout(30_000);
configure({ asyncUtilTimeout: 10_000 });

describe('PoolSubscriptionSection', () => {
  it("flags a pool whose teams' quotas exceed its capacity, with the figures", async () => {
    const api = new FakeGpuApi();
    // The demo platform: l4-ondemand has 4 GPUs; ml-platform's quota is 4 and search's 2. One is held.
    api.quotas.set(
      'ml-platform',
      teamQuota('ml-platform', { 'l4-ondemand': 1 }),
    );
    await renderWithGpuApis(<PoolSubscriptionSection />, { api });

    expect(
      await screen.findByText('Warning: Quotas oversubscribe pool l4-ondemand'),
    ).toBeInTheDocument();
    expect(
      screen.getByText(
        "The quotas of 2 teams add up to 6 GPU-equivalents against the pool's capacity of 4 (held now: 1).",
      ),
    ).toBeInTheDocument();
    // h100's only quota (ml-platform's 8) is exactly its capacity: not flagged.
    expect(
      screen.queryByText('Warning: Quotas oversubscribe pool h100'),
    ).not.toBeInTheDocument();
    const h100 = screen.getByRole('row', { name: /^h100/ });
    expect(within(h100).getByText('Within capacity')).toBeInTheDocument();
    const l4 = screen.getByRole('row', { name: /^l4-ondemand/ });
    expect(within(l4).getByText('6 (2 teams)')).toBeInTheDocument();
    expect(within(l4).getByText('Oversubscribed by 2')).toBeInTheDocument();
    // What is in use and free now, per pool: l4-ondemand 1 of 4 held, 3 free; nothing held on h100.
    const cellsOf = (row: HTMLElement) =>
      within(row)
        .getAllByRole('cell')
        .map(c => c.textContent);
    expect(
      screen.getByRole('columnheader', { name: 'In use (GPU-eq.)' }),
    ).toBeInTheDocument();
    expect(cellsOf(l4).slice(3, 5)).toEqual(['1', '3']);
    expect(cellsOf(h100).slice(3, 5)).toEqual(['0', '8']);
    expect(screen.getByTestId('pool-capacity-policy')).toHaveTextContent(
      "A request within its team's quota that does not fit the pool's free capacity waits for approval; an approver can grant it once capacity is free (gpu.admission.whenOverPoolCapacity: approval).",
    );
  });

  it('says when the platform refuses requests beyond a pool', async () => {
    const api = new FakeGpuApi();
    api.whenOverPoolCapacity = 'refuse';
    await renderWithGpuApis(<PoolSubscriptionSection />, { api });
    expect(await screen.findByTestId('pool-capacity-policy')).toHaveTextContent(
      "A request within its team's quota that does not fit the pool's free capacity is refused, and nothing is reserved (gpu.admission.whenOverPoolCapacity: refuse).",
    );
  });

  it("asks nothing of the backend for someone who may not read every team's quota", async () => {
    const api = new FakeGpuApi();
    await renderWithGpuApis(<PoolSubscriptionSection />, { api, allow: false });
    await waitFor(() =>
      expect(
        screen.queryByText('Pool capacity and quotas'),
      ).not.toBeInTheDocument(),
    );
    expect(api.callsOf('listPoolSubscriptions')).toEqual([]);
  });
});
