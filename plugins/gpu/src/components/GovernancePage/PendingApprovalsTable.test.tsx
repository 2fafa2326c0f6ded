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
import userEvent from '@testing-library/user-event';
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
  it('words each reason by its code on one line, and shows every whole sentence in place with a keyboard button', async () => {
    const quota =
      'ml-platform would hold 5 of 4 GPU-equivalents on l4-ondemand (over quota by 1)';
    const reasons = [
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
    ];
    await renderAs('user:default/alice', reasons);
    const cell = screen.getByRole('cell', { name: /^Over quota/ });
    const [words, details] = within(cell).getAllByRole('list', {
      hidden: true,
    });
    const items = within(words).getAllByRole('listitem');
    expect(items.map(li => li.textContent)).toEqual([
      'Over quota',
      'Over budget this month',
      'Outside policy',
      'Outside policy',
      'a reason of a newer backend',
    ]);
    expect(items[0]).toHaveStyle({ whiteSpace: 'nowrap' });

    // The whole sentences are hidden until asked for, then shown in the row, wrapped: no hover, no dialog.
    const toggle = within(cell).getByRole('button', {
      name: 'Full reasons for big-summariser',
    });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(details).not.toBeVisible();
    expect(toggle.tabIndex).toBe(0);
    toggle.focus();
    await userEvent.setup({ delay: null }).keyboard('{Enter}');
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    expect(details).toBeVisible();
    expect(
      within(details)
        .getAllByRole('listitem')
        .map(li => li.textContent),
    ).toEqual(reasons.map(r => r.message));
    expect(
      document.getElementById(toggle.getAttribute('aria-controls')!),
    ).toHaveStyle({ whiteSpace: 'normal' });
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('names the button for one reason in the singular', async () => {
    await renderAs('user:default/alice');
    expect(
      await screen.findByRole('button', {
        name: 'Full reason for big-summariser',
      }),
    ).toHaveTextContent('Full reason');
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
