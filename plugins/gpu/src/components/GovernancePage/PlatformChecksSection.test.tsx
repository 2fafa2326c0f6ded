import { PlatformChecksResponse } from '@gpu-platform/backstage-plugin-gpu-common';
import { configure, screen, waitFor, within } from '@testing-library/react';
import { renderWithGpuApis } from '../../__testUtils__/renderWithGpuApis';
import { FakeGpuApi } from '../../__testUtils__/FakeGpuApi';
import { responseError } from '../../__testUtils__/responseError';
import { PlatformChecksSection } from './PlatformChecksSection';

jest.setTimeout(30_000);
configure({ asyncUtilTimeout: 10_000 });

const checkedAt = '2026-12-01T10:00:00.000Z';

async function renderSection(api: FakeGpuApi, allow = true) {
  await renderWithGpuApis(<PlatformChecksSection />, { api, allow });
}

describe('PlatformChecksSection', () => {
  it('shows progress while the checks run', async () => {
    const api = new FakeGpuApi();
    api.platformChecks = () => new Promise(() => {});
    await renderSection(api);
    await waitFor(() =>
      expect(api.callsOf('getPlatformChecks')).toHaveLength(1),
    );
    expect(await screen.findByTestId('progress')).toBeInTheDocument();
    expect(screen.getByText('Platform checks')).toBeInTheDocument();
  });

  it('says when none of the mistakes is found, and what was checked', async () => {
    const api = new FakeGpuApi();
    api.platformChecks = async () => ({
      checkedAt,
      clusters: [
        { name: 'local', mode: 'apply', live: true },
        { name: 'gpu-gitops', mode: 'gitops', live: false },
      ],
      findings: [],
    });
    await renderSection(api);
    expect(
      await screen.findByText('None of the common GPU-cluster mistakes found.'),
    ).toBeInTheDocument();
    expect(
      screen.getByText(
        'The config was checked; read live: local; config checks only, Backstage does not read them: gpu-gitops (gitops).',
      ),
    ).toBeInTheDocument();
  });

  it('lists each finding with its severity, where it is, why it matters and the fix', async () => {
    const response: PlatformChecksResponse = {
      checkedAt,
      clusters: [{ name: 'local', mode: 'apply', live: true }],
      findings: [
        {
          id: 'production-on-spot',
          severity: 'error',
          source: 'config',
          where: 'gpu.pools[1].capacityType',
          message: 'Spot pool spot-l4 can take production services',
          fix: 'Keep production on on-demand capacity',
        },
        {
          id: 'gpu-nodes-untainted',
          severity: 'warning',
          source: 'cluster',
          cluster: 'local',
          where: 'Node gpu-7',
          message: 'GPU node gpu-7 has no NoSchedule taint',
          fix: 'Taint it',
        },
      ],
    };
    const api = new FakeGpuApi();
    api.platformChecks = async () => response;
    await renderSection(api);
    const first = (await screen.findByText('production-on-spot')).closest(
      'tr',
    ) as HTMLElement;
    expect(
      within(first)
        .getAllByRole('cell')
        .map(c => c.textContent),
    ).toEqual([
      'error',
      'production-on-spot',
      'gpu.pools[1].capacityType',
      'Spot pool spot-l4 can take production services',
      'Keep production on on-demand capacity',
    ]);
    const second = screen
      .getByText('gpu-nodes-untainted')
      .closest('tr') as HTMLElement;
    expect(within(second).getByText('local: Node gpu-7')).toBeInTheDocument();
    expect(within(second).getByText('warning')).toBeInTheDocument();
    expect(
      screen.getByText('The config was checked; read live: local.'),
    ).toBeInTheDocument();
  });

  it('shows why the checks could not run', async () => {
    const api = new FakeGpuApi();
    api.platformChecks = async () => {
      throw await responseError(
        503,
        'Service Unavailable',
        'ServiceUnavailableError',
        'The gpu backend is starting',
      );
    };
    await renderSection(api);
    expect(
      await screen.findByText(/Could not run the platform checks/),
    ).toBeInTheDocument();
    expect(screen.getByText(/The gpu backend is starting/)).toBeInTheDocument();
  });

  it("tells a caller without the permission that the checks are the platform team's, without asking the backend", async () => {
    const api = new FakeGpuApi();
    await renderSection(api, false);
    expect(
      await screen.findByText(
        "The platform checks are the platform team's (permission gpu.quota.read).",
      ),
    ).toBeInTheDocument();
    expect(
      screen.queryByText(/Could not run the platform checks/),
    ).not.toBeInTheDocument();
    expect(api.callsOf('getPlatformChecks')).toEqual([]);
  });
});
