import { screen } from '@testing-library/react';
import { FakeGpuApi } from '../../__testUtils__/FakeGpuApi';
import { renderWithGpuApis } from '../../__testUtils__/renderWithGpuApis';
import { TeamQuotaUsageTable } from './TeamQuotaUsageTable';

jest.setTimeout(30_000);

describe('TeamQuotaUsageTable', () => {
  it('says who last changed a quota in words: the platform config, not its actor key config:app-config', async () => {
    const api = new FakeGpuApi();
    // As the backend records the quotas it takes from app-config on its first start.
    api.quotas.set('search', {
      ...api.quotas.get('search')!,
      updatedBy: 'config:app-config',
    });
    api.quotas.set('ml-platform', {
      ...api.quotas.get('ml-platform')!,
      updatedBy: 'user:default/alice',
    });
    await renderWithGpuApis(
      <TeamQuotaUsageTable
        teams={['ml-platform', 'search']}
        pools={['l4-ondemand']}
      />,
      { api },
    );
    expect(
      await screen.findByText(/^the platform config \(app-config\.yaml\),/),
    ).toBeInTheDocument();
    expect(screen.getByText(/^alice,/)).toBeInTheDocument();
    expect(screen.queryByText(/config:app-config/)).toBeNull();
  });
});
