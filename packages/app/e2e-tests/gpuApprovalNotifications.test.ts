import { expect, Page, test } from '@playwright/test';
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { seriousViolations } from './support/axe';
import { watchConsole } from './support/consoleProblems';
import { screenshot } from './support/screenshot';
import { serviceRequest } from './support/serviceRequest';
import { autocomplete, chooseTemplate, tierRow } from './support/template';
import { api, backstageToken, newUserContext, signIn } from './support/users';

/**
 * Two people in two browsers (app-config.e2e.yaml: signed in as behind oauth2-proxy, support/users.ts): bob of
 * ml-platform asks for a GPU service his team's quota does not cover, alice of the platform team finds it in her
 * Backstage notifications, approves it on the governance page the notification links to, and bob is told, in his
 * notifications and on the service's page, which updates while it is open (signals). Neither page logs a console
 * error or warning of the product.
 */
/** Where the template registers Components without a Git provider (`scaffolder.gpu.catalogDirectory`). */
const LOCAL_CATALOG = resolve(__dirname, '../../../local-catalog');

/** The card's one-line summary of the service on its entity page. */
function cardSummary(page: Page) {
  return page
    .locator('.MuiCard-root')
    .filter({ has: page.getByText('GPU usage and cost', { exact: true }) })
    .getByText(/ · (dev|production) · /);
}

/** The row of the notifications page whose title (a link) is `title`, its description shown in full. */
async function notification(page: Page, title: string) {
  const link = page.getByRole('link', { name: title, exact: true });
  await expect(link).toBeVisible({ timeout: 30_000 });
  const row = page.locator('tr').filter({ has: link });
  // Descriptions longer than 100 characters are cut short until asked for.
  const more = row.getByRole('button', { name: 'Show more' });
  if (await more.count()) await more.click();
  return { link, row };
}

async function openNotifications(page: Page) {
  await page
    .getByRole('navigation', { name: 'sidebar nav' })
    .getByRole('link', { name: /^Notifications/ })
    .click();
  await expect(page).toHaveURL(/\/notifications/);
}

test('bob requests beyond quota, alice is notified and approves it, bob is notified and sees it approved', async ({
  browser,
}) => {
  test.setTimeout(240_000);
  const name = `e2e-appr-${Date.now().toString(36)}`;
  const comment = 'approved for the launch';
  const bob = await newUserContext(browser, 'bob');
  const alice = await newUserContext(browser, 'alice');
  const bobPage = await bob.newPage();
  const alicePage = await alice.newPage();
  const bobConsole = watchConsole(bobPage);
  const aliceConsole = watchConsole(alicePage);

  // Bob asks through the template for a dedicated L4 on spot-l4, where ml-platform has no quota.
  await signIn(bobPage);
  await chooseTemplate(bobPage, 'GPU model service');
  await bobPage.getByLabel(/^Name/).fill(name);
  await autocomplete(bobPage, /^Owning team/, 'ml-platform');
  await bobPage.getByRole('button', { name: 'Next' }).click();
  await bobPage.getByRole('button', { name: 'Next' }).click();
  const spot = tierRow(bobPage, 'dedicated', 'spot-l4');
  await expect(spot).toContainText('Needs approval');
  await spot.getByRole('radio').check();
  await expect(
    bobPage.getByText('Info: Dedicated on spot-l4 needs approval'),
  ).toBeVisible();
  await bobPage.getByRole('button', { name: 'Review' }).click();
  await bobPage.getByRole('button', { name: 'Create' }).click();
  await expect(
    bobPage.getByText(
      new RegExp(
        `^${name} is waiting for approval \\(rendered only: no cluster is configured\\)`,
      ),
    ),
  ).toBeVisible({ timeout: 60_000 });

  // Bob keeps the service's page open: it shows the request waiting.
  await bobPage
    .getByRole('link', { name: 'Open the service in the catalog' })
    .click();
  await expect(bobPage).toHaveURL(
    new RegExp(`/catalog/default/component/${name}$`),
  );
  await expect(cardSummary(bobPage)).toContainText(
    'waiting for approval (dry run, no cluster)',
    { timeout: 30_000 },
  );

  // Alice, a platform approver, has a notification about it that links to the governance page.
  await signIn(alicePage);
  await openNotifications(alicePage);
  const pending = await notification(
    alicePage,
    `GPU request needs approval: ${name} (ml-platform)`,
  );
  await expect(pending.row).toContainText(
    new RegExp(
      `bob requests ${name}: llama-3\\.1-8b, dedicated on spot-l4, 1 replica, dev\\. Why it needs approval: `,
    ),
  );
  await screenshot(alicePage, 'gpu-notification-pending-approval');
  await pending.link.click();
  await expect(alicePage).toHaveURL(/\/gpu$/);
  await expect(
    alicePage.getByRole('heading', { name: 'GPU governance' }),
  ).toBeVisible();

  const approve = alicePage.getByRole('button', { name: `approve ${name}` });
  await expect(approve).toBeEnabled({ timeout: 30_000 });
  // With a request listed, its Approve and Reject buttons are readable too (Reject was pink at 2.2:1 on white).
  expect(await seriousViolations(alicePage, 'main')).toEqual([]);
  await approve.click();
  const dialog = alicePage.getByRole('dialog');
  await dialog.getByLabel('Comment (optional)').fill(comment);
  // spot-l4 is outside ml-platform's quota: granting it anyway is an explicit choice.
  const overQuota = dialog.getByLabel(
    "Approve even if it does not fit the team's quota or budget",
  );
  await overQuota.check();
  await expect(overQuota).toBeChecked();
  await dialog.getByRole('button', { name: 'Approve' }).click();
  await expect(
    alicePage.getByText(`Approved ${name}: the service is now approved.`),
  ).toBeVisible();
  await screenshot(alicePage, 'gpu-approved-by-alice');

  // Bob's open page follows (the gpu:service-changes signal), without a reload.
  await expect(cardSummary(bobPage)).toContainText(
    'approved (dry run, no cluster)',
    {
      timeout: 30_000,
    },
  );
  await expect(cardSummary(bobPage)).not.toContainText('pending-approval');

  // His notifications say who decided, with the comment, and link to the service's page.
  await openNotifications(bobPage);
  const decision = await notification(
    bobPage,
    `Approved: ${name} (ml-platform)`,
  );
  await expect(decision.row).toContainText(
    `alice approved your request for ${name}: "${comment}". It is rendered and stored (dry-run: no cluster is configured).`,
  );
  // Bob is no approver: he was not asked to approve anything.
  await expect(
    bobPage.getByRole('link', { name: /^GPU request needs approval: / }),
  ).toHaveCount(0);
  await screenshot(bobPage, 'gpu-notification-decision');
  await decision.link.click();
  await expect(bobPage).toHaveURL(
    new RegExp(`/catalog/default/component/${name}$`),
  );
  await expect(cardSummary(bobPage)).toContainText(
    'approved (dry run, no cluster)',
    {
      timeout: 30_000,
    },
  );

  // The approvers' notification now tells the outcome instead of asking (same scope: replaced, not added).
  await openNotifications(alicePage);
  await notification(alicePage, `Approved by alice: ${name} (ml-platform)`);

  // Leave ml-platform's quota as it was for the other suites: bob deletes the service, and its catalog file goes.
  const { items } = await api(
    bob.request,
    'GET',
    '/api/gpu/services?team=ml-platform&status=approved',
  );
  const approved = items.find((s: { name: string }) => s.name === name);
  expect(approved).toBeDefined();
  await api(bob.request, 'DELETE', `/api/gpu/services/${approved.id}`);
  await rm(resolve(LOCAL_CATALOG, `component-default-${name}.yaml`), {
    force: true,
  });
  await expect(
    alicePage.getByRole('link', {
      name: `GPU request needs approval: ${name} (ml-platform)`,
    }),
  ).toHaveCount(0);
  expect(await bobConsole.problems()).toEqual([]);
  expect(await aliceConsole.problems()).toEqual([]);

  await bob.close();
  await alice.close();
});

test('bob cannot decide a request; alice rejects it and bob is told', async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const name = `e2e-rej-${Date.now().toString(36)}`;
  const bob = await newUserContext(browser, 'bob');
  const alice = await newUserContext(browser, 'alice');
  const created = await api(bob.request, 'POST', '/api/gpu/services', {
    request: serviceRequest(name, { tier: 'dedicated', pool: 'spot-l4' }),
    entityRef: `component:default/${name}`,
  });
  expect(created.status).toBe('pending-approval');
  const approvalId: string = created.approval.id;

  // Depends on the platform permission policy (gpu.request.approve for the platform groups only): until it
  // replaces allow-all these fail, softly, and the rest of the test still runs.
  const bobsApproval = await bob.request.post(
    `/api/gpu/approvals/${approvalId}/approve`,
    {
      headers: { Authorization: `Bearer ${await backstageToken(bob.request)}` },
      data: { allowOverQuota: true },
    },
  );
  expect.soft(bobsApproval.status(), 'bob may not approve (403)').toBe(403);
  const bobPage = await bob.newPage();
  const bobConsole = watchConsole(bobPage);
  await signIn(bobPage);
  await bobPage.goto('/gpu');
  await expect(
    bobPage.getByRole('heading', { name: 'GPU governance' }),
  ).toBeVisible();
  await expect
    .soft(bobPage.getByText('You may see requests but not decide them.'))
    .toBeVisible({ timeout: 15_000 });
  const bobApprove = bobPage.getByRole('button', { name: `approve ${name}` });
  expect
    .soft(
      (await bobApprove.count()) === 0 || (await bobApprove.isDisabled()),
      'the approve button is hidden or disabled for bob',
    )
    .toBe(true);
  await screenshot(bobPage, 'gpu-governance-as-bob');

  // Alice rejects it; bob's notifications say so, with high severity, and the request is gone from the page.
  const rejected = await api(
    alice.request,
    'POST',
    `/api/gpu/approvals/${approvalId}/reject`,
    { comment: 'use the on-demand pool' },
  );
  expect(rejected.service.status).toBe('rejected');
  await expect(bobApprove).toHaveCount(0, { timeout: 30_000 });
  await openNotifications(bobPage);
  const rejection = await notification(
    bobPage,
    `Rejected: ${name} (ml-platform)`,
  );
  await expect(rejection.row).toContainText(
    `alice rejected your request for ${name}: "use the on-demand pool". Its quota is released; nothing was deployed.`,
  );
  expect(await bobConsole.problems()).toEqual([]);

  await bob.close();
  await alice.close();
});
