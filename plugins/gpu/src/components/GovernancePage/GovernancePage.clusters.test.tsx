import { entityRouteRef } from '@backstage/plugin-catalog-react';
import { configure, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { FakeGpuApi } from '../../__testUtils__/FakeGpuApi';
import { overviewFixture, platform } from '../../__testUtils__/gpuFixtures';
import { renderWithGpuApis } from '../../__testUtils__/renderWithGpuApis';
import { GovernancePage } from './GovernancePage';

jest.setTimeout(30_000);
configure({ asyncUtilTimeout: 10_000 });

const user = userEvent.setup({ delay: null });

/** The demo platform on two clusters: the on-demand L4s on prod-eu, every other pool on dev. */
function fleetApi(): FakeGpuApi {
  const api = new FakeGpuApi();
  api.platform = {
    platform: {
      ...platform,
      pools: platform.pools.map(p => ({
        ...p,
        cluster: p.name === 'l4-ondemand' ? 'prod-eu' : 'dev',
      })),
    },
    clusters: [
      { name: 'dev', mode: 'apply', labels: { environmentClass: 'dev' } },
      {
        name: 'prod-eu',
        mode: 'apply',
        labels: { region: 'eu-west-1', cloud: 'aws' },
      },
    ],
  };
  return api;
}

describe('GovernancePage on a fleet of clusters', () => {
  it('names each cluster with its labels and filters the pools by cluster', async () => {
    await renderWithGpuApis(<GovernancePage />, {
      api: fleetApi(),
      mountedRoutes: { '/catalog/:namespace/:kind/:name': entityRouteRef },
    });
    await screen.findByText('GPU pools');
    expect(screen.getByTestId('cluster-mode')).toHaveTextContent(
      'dev (apply, dev), prod-eu (apply, eu-west-1, aws)',
    );
    const poolsTable = () =>
      screen
        .getByText('GPU pools')
        .closest('div[class*="MuiPaper"]') as HTMLElement;
    expect(within(poolsTable()).getByText('spot-l4')).toBeInTheDocument();

    await user.click(screen.getByText('All clusters'));
    await user.click(
      await screen.findByRole('option', { name: /prod-eu \(apply/ }),
    );
    expect(within(poolsTable()).getByText('l4-ondemand')).toBeInTheDocument();
    expect(within(poolsTable()).queryByText('spot-l4')).toBeNull();
  });

  it('asks the backend for the cost overview of the chosen cluster, and of all of them again', async () => {
    const api = fleetApi();
    api.overview = async (label, cluster) => ({
      ...overviewFixture(label),
      ...(cluster && { cluster, services: [] }),
    });
    await renderWithGpuApis(<GovernancePage />, {
      api,
      mountedRoutes: { '/catalog/:namespace/:kind/:name': entityRouteRef },
    });
    const totals = await screen.findByTestId('overview-totals');
    const everywhere = overviewFixture('7d').services.length;
    expect(totals).toHaveTextContent(`${everywhere} service(s)`);
    expect(api.callsOf('getOverview')).toEqual([['7d']]);

    await user.click(screen.getByText('All clusters'));
    await user.click(
      await screen.findByRole('option', { name: /prod-eu \(apply/ }),
    );
    expect(await screen.findByText(/^0 service\(s\)/)).toBeInTheDocument();
    expect(api.callsOf('getOverview')).toEqual([['7d'], ['7d', 'prod-eu']]);

    await user.click(screen.getByText(/^prod-eu \(apply/));
    await user.click(
      await screen.findByRole('option', { name: 'All clusters' }),
    );
    expect(
      await screen.findByText(new RegExp(`^${everywhere} service\\(s\\)`)),
    ).toBeInTheDocument();
    expect(api.callsOf('getOverview').at(-1)).toEqual(['7d']);
  });

  it('has no cluster filter with one cluster', async () => {
    const api = new FakeGpuApi();
    api.platform = { platform, clusters: [{ name: 'local', mode: 'apply' }] };
    await renderWithGpuApis(<GovernancePage />, {
      api,
      mountedRoutes: { '/catalog/:namespace/:kind/:name': entityRouteRef },
    });
    await screen.findByText('GPU pools');
    expect(screen.queryByTestId('cluster-filter')).toBeNull();
  });
});
