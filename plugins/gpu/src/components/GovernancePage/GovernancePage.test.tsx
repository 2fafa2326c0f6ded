import {
  renderInTestApp,
  TestApiProvider,
} from '@backstage/frontend-test-utils';
import {
  demoPlatformConfig,
  parsePlatform,
  PlatformResponse,
} from '@internal/backstage-plugin-gpu-common';
import { screen } from '@testing-library/react';
import { GpuApi, gpuApiRef } from '../../api';
import { GovernancePage } from './GovernancePage';

function apiReturning(
  result: Promise<PlatformResponse>,
): Pick<GpuApi, 'getPlatform'> {
  return { getPlatform: () => result };
}

describe('GovernancePage', () => {
  const platform = parsePlatform(demoPlatformConfig);

  it('lists pools, tier policy and team quotas, and says when nothing is applied', async () => {
    await renderInTestApp(
      <TestApiProvider
        apis={[[gpuApiRef, apiReturning(Promise.resolve({ platform, clusters: [] }))]]}
      >
        <GovernancePage />
      </TestApiProvider>,
    );
    expect(await screen.findByText('GPU pools')).toBeInTheDocument();
    for (const pool of platform.pools) {
      expect(screen.getByText(pool.name)).toBeInTheDocument();
    }
    expect(screen.getByText('Tier policy')).toBeInTheDocument();
    expect(screen.getByText('production')).toBeInTheDocument();
    expect(screen.getByTestId('cluster-mode')).toHaveTextContent('dry-run');
    expect(screen.getByText(platform.teams[0].name)).toBeInTheDocument();
  });

  it('names the clusters and their modes when some are configured', async () => {
    await renderInTestApp(
      <TestApiProvider
        apis={[
          [
            gpuApiRef,
            apiReturning(
              Promise.resolve({
                platform,
                clusters: [{ name: 'prod-eu', mode: 'apply' }],
              }),
            ),
          ],
        ]}
      >
        <GovernancePage />
      </TestApiProvider>,
    );
    expect(await screen.findByTestId('cluster-mode')).toHaveTextContent(
      'prod-eu (apply)',
    );
  });

  it('shows the backend error instead of the tables', async () => {
    await renderInTestApp(
      <TestApiProvider
        apis={[[gpuApiRef, apiReturning(Promise.reject(new Error('backend down')))]]}
      >
        <GovernancePage />
      </TestApiProvider>,
    );
    expect((await screen.findAllByText(/backend down/)).length).toBeGreaterThan(0);
    expect(screen.queryByText('GPU pools')).not.toBeInTheDocument();
  });
});
