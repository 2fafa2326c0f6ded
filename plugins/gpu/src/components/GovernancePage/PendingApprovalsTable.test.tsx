import { entityRouteRef } from '@backstage/plugin-catalog-react';
import {
  mockApis,
  renderInTestApp,
  TestApiProvider,
} from '@backstage/frontend-test-utils';
import { identityApiRef } from '@backstage/frontend-plugin-api';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import { permissionApiRef } from '@backstage/plugin-permission-react';
import { configure, screen, waitFor, within } from '@testing-library/react';
import { SWRConfig } from 'swr';
import { gpuApiRef } from '../../api';
import { FakeGpuApi } from '../../__testUtils__/FakeGpuApi';
import { summariserService } from '../../__testUtils__/gpuFixtures';
import { OWN_REQUEST, PendingApprovalsTable } from './PendingApprovalsTable';

jest.setTimeout(30_000);
configure({ asyncUtilTimeout: 10_000 });

/** Bob's request beyond quota, and the table as `viewer` (a platform approver) sees it. */
async function renderAs(
  viewer: string,
  reasons: { code: string; message: string }[] = [
    { code: 'over-quota', message: 'over quota' },
  ],
) {
  const api = new FakeGpuApi();
  const big = summariserService({
    id: 'svc-big',
    name: 'big-summariser',
    status: 'pending-approval',
  });
  api.services.set(big.id, big);
  api.approvals.push({
    id: 'appr-1',
    serviceId: big.id,
    team: 'ml-platform',
    kind: 'create',
    state: 'pending',
    reasons,
    requestedBy: 'user:default/bob',
    requestedAt: new Date().toISOString(),
  });
  await renderInTestApp(
    <SWRConfig value={{ provider: () => new Map() }}>
      <TestApiProvider
        apis={[
          [gpuApiRef, api],
          [
            permissionApiRef,
            mockApis.permission({ authorize: AuthorizeResult.ALLOW }),
          ],
          [identityApiRef, mockApis.identity({ userEntityRef: viewer })],
        ]}
      >
        <PendingApprovalsTable />
      </TestApiProvider>
    </SWRConfig>,
    { mountedRoutes: { '/catalog/:namespace/:kind/:name': entityRouteRef } },
  );
  return {
    approve: await screen.findByLabelText('approve big-summariser'),
    reject: await screen.findByLabelText('reject big-summariser'),
  };
}

describe('PendingApprovalsTable', () => {
  it('words each reason by its code on one line, its sentence in the tooltip and for screen readers', async () => {
    const quota =
      'ml-platform would hold 5 of 4 GPU-equivalents on l4-ondemand (over quota by 1)';
    await renderAs('user:default/alice', [
      { code: 'over-quota', message: quota },
      {
        code: 'over-budget-this-month',
        message:
          'month-to-date $1,900.00 + the rest of the month is above $2,000.00',
      },
      {
        code: 'policy',
        message: 'tier time-sliced is not allowed in production',
      },
      { code: 'policy', message: 'dedicated GPUs above the limit of 2' },
      { code: 'something-new', message: 'a reason of a newer backend' },
    ]);
    const items = within(
      screen.getByRole('cell', { name: /^Over quota/ }),
    ).getAllByRole('listitem');
    expect(items.map(li => li.firstChild?.textContent)).toEqual([
      'Over quota',
      'Over budget this month',
      'Outside policy',
      'Outside policy',
      'a reason of a newer backend',
    ]);
    expect(items[0]).toHaveAttribute('title', quota);
    expect(items[0]).toHaveTextContent(`Over quota: ${quota}`);
    expect(items[0]).toHaveStyle({ whiteSpace: 'nowrap' });
  });

  it("lets an approver decide someone else's request", async () => {
    const { approve, reject } = await renderAs('user:default/alice');
    await waitFor(() => expect(approve).toBeEnabled());
    expect(reject).toBeEnabled();
    expect(screen.queryByTestId('own-request')).toBeNull();
  });

  it('disables the decision on your own request, saying why (four eyes)', async () => {
    await renderAs('user:default/Bob');
    // Query afresh: the rows render again once the identity is known.
    await waitFor(() =>
      expect(
        screen.getByRole('button', { name: 'approve big-summariser' }),
      ).toBeDisabled(),
    );
    expect(
      screen.getByRole('button', { name: 'reject big-summariser' }),
    ).toBeDisabled();
    // Said as text under the buttons, not only in a tooltip, and read with the disabled buttons.
    const why = screen.getByTestId('own-request');
    expect(why).toBeVisible();
    expect(why).toHaveTextContent(
      'You made this request, so you cannot decide it (four eyes)',
    );
    expect(
      screen.getByRole('button', { name: 'approve big-summariser' }),
    ).toHaveAccessibleDescription(OWN_REQUEST);
  });
});
