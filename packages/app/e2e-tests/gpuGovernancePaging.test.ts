import { expect, Page, test } from '@playwright/test';
import { seriousViolations } from './support/axe';
import { watchConsole } from './support/consoleProblems';
import {
  cellsOutside,
  rowHeights,
  sidewaysScrolling,
  tableOf,
} from './support/governancePage';
import {
  registerGpuComponent,
  removeGpuComponent,
} from './support/localCatalog';
import { screenshot } from './support/screenshot';
import { serviceRequest } from './support/serviceRequest';
import { api, newUserContext, signIn } from './support/users';

/**
 * The governance page with a long queue: the OCR batch case, 46 requests of bob's team (ml-platform) for dedicated
 * spot L4s, which the team has no quota on, so every one waits for an approver. The suite's default user (the org's
 * guest, of the platform team) reads the queue a page at a time, searches it, opens the approval dialog of a row on
 * the second page and checks what it says; the page has no serious or critical accessibility violation (axe-core)
 * and logs no console error or warning. Screenshots at 1440 and 1280 px. The requests are rejected at the end, so
 * the other suites see the queue as they left it.
 */
const RUN = Date.now().toString(36);
const PREFIX = `e2e-ocr-${RUN}`;
const COUNT = 46;
const nameOf = (i: number) => `${PREFIX}-${String(i).padStart(2, '0')}`;
/** A dedicated spot L4 in production: ml-platform has no quota on spot-l4, so it waits for an approver. */
const ocrRequest = (name: string) =>
  serviceRequest(name, { tier: 'dedicated', pool: 'spot-l4' }, 'production');
/** One more request of the batch, with a catalog component: its audit rows link to the entity. */
const LINKED = `e2e-ocrdoc-${RUN}`;
/** Taller than two lines of a dense row (a reason squeezed into a narrow column makes rows hundreds of px high). */
const MAX_ROW_HEIGHT = 120;

/** What a decision button looks like on screen: its height and how many lines its label takes. */
async function buttonLines(page: Page, name: string) {
  return page.getByRole('button', { name }).evaluate(button => {
    // The label's text node: one client rect per line it takes.
    const walker = document.createTreeWalker(button, NodeFilter.SHOW_TEXT);
    const text = walker.nextNode()!;
    const range = document.createRange();
    range.selectNodeContents(text);
    return {
      height: button.getBoundingClientRect().height,
      lines: range.getClientRects().length,
    };
  });
}

test.afterAll(async ({ browser }) => {
  const alice = await newUserContext(browser, 'alice');
  const pending = [];
  for (const search of [PREFIX, LINKED]) {
    const page = await api(
      alice.request,
      'GET',
      `/api/gpu/approvals?state=pending&search=${search}&limit=200`,
    );
    pending.push(...page.items);
  }
  for (const approval of pending) {
    await api(
      alice.request,
      'POST',
      `/api/gpu/approvals/${approval.id}/reject`,
      {
        comment: 'end of the governance paging test',
      },
    );
  }
  await alice.close();
  await removeGpuComponent(LINKED);
});

test('the governance page pages, searches and decides a queue of 46 requests, accessibly', async ({
  browser,
  page,
  request,
}) => {
  test.setTimeout(300_000);
  const bob = await newUserContext(browser, 'bob');
  for (let i = 1; i <= COUNT; i++) {
    const service = await api(bob.request, 'POST', '/api/gpu/services', {
      request: ocrRequest(nameOf(i)),
    });
    expect(service.status).toBe('pending-approval');
  }
  const linked = await api(bob.request, 'POST', '/api/gpu/services', {
    request: ocrRequest(LINKED),
    entityRef: `component:default/${LINKED}`,
  });
  expect(linked.status).toBe('pending-approval');
  await bob.close();
  await registerGpuComponent(request, LINKED, linked.id);

  const consoleProblems = watchConsole(page);
  const approvalRequests: string[] = [];
  const serviceReads: string[] = [];
  page.on('request', r => {
    const { pathname } = new URL(r.url());
    if (pathname === '/api/gpu/approvals') approvalRequests.push(r.url());
    if (/^\/api\/gpu\/services\/[^/]+$/.test(pathname)) {
      serviceReads.push(r.url());
    }
  });

  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page);
  await page.goto('/gpu');
  await expect(
    page.getByRole('heading', { name: 'GPU governance' }),
  ).toBeVisible();
  const search = page.getByRole('textbox', {
    name: 'Search pending approvals',
  });
  await search.fill(PREFIX);
  const approvals = tableOf(page, 'Pending approvals');
  // The pagination's range, as shown (the table renders a hidden copy for narrow screens).
  const caption = (text: string) =>
    approvals
      .locator('p:visible, span:visible', { hasText: new RegExp(`^${text}$`) })
      .first();
  await expect(caption(`1-10 of ${COUNT}`)).toBeVisible({
    timeout: 30_000,
  });
  await expect(
    page.getByRole('button', { name: `approve ${nameOf(1)}` }),
  ).toBeEnabled();
  await expect(
    page.getByRole('button', { name: `approve ${nameOf(11)}` }),
  ).toHaveCount(0);

  // Decision buttons stay on one line; the quota table starts near the top, not 12,000 px down.
  for (const name of [`approve ${nameOf(1)}`, `reject ${nameOf(1)}`]) {
    const shape = await buttonLines(page, name);
    expect(shape.lines, name).toBe(1);
    expect(shape.height, name).toBeLessThan(40);
  }
  // Every column in view, the decisions included, and rows a few lines high. Soft, as are the same checks at 1280:
  // the paging, the dialog and the rest of the page are still checked when the layout is wrong.
  expect.soft(await cellsOutside(approvals), 'cut off at 1440').toEqual([]);
  const wide = await rowHeights(approvals);
  expect(wide).toHaveLength(10);
  expect
    .soft(Math.max(...wide), 'tallest row at 1440')
    .toBeLessThan(MAX_ROW_HEIGHT);
  const quotaTop = await page
    .getByRole('heading', { name: 'Team quotas' })
    .evaluate(h => h.getBoundingClientRect().top + window.scrollY);
  expect(quotaTop).toBeLessThan(4000);

  await screenshot(page, 'gpu-governance-1440');

  // The second page, read with the first page's cursor, one request for the page and none per approval.
  const before = approvalRequests.length;
  await approvals.getByRole('button', { name: 'Next Page' }).click();
  await expect(caption(`11-20 of ${COUNT}`)).toBeVisible();
  expect(approvalRequests.length).toBe(before + 1);
  expect(approvalRequests.at(-1)).toContain('cursor=');
  expect(serviceReads).toEqual([]);

  const approve = page.getByRole('button', { name: `approve ${nameOf(12)}` });
  await approve.click();
  const dialog = page.getByRole('dialog', { name: `Approve ${nameOf(12)}` });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByTestId('decision-cost')).toContainText(
    /\$[\d,]+\.\d\d a month/,
  );
  await expect(dialog.getByTestId('decision-quota-effect')).toContainText(
    /spot-l4: [\d.]+ of 0 GPU-equivalents held; approving makes it [\d.]+ of 0, 1 over quota/,
  );
  await expect(dialog.getByTestId('approval-overage')).toContainText(
    '1 GPU-equivalent over quota in pool spot-l4',
  );
  await expect(
    dialog.getByLabel(
      "Approve even if it does not fit the team's quota or budget",
    ),
  ).not.toBeChecked();
  // Over quota, Approve waits for that choice and says so beside the box, inside the dialog's view.
  await expect(dialog.getByRole('button', { name: 'Approve' })).toBeDisabled();
  await expect(dialog.getByTestId('decision-override-needed')).toBeInViewport();
  expect(await seriousViolations(page, '[role="dialog"]')).toEqual([]);
  // The dialog opens over the row it decides: both are on screen.
  const viewport = page.viewportSize()!;
  const box = (await dialog.boundingBox())!;
  expect(box.y).toBeGreaterThanOrEqual(0);
  expect(box.y + box.height).toBeLessThanOrEqual(viewport.height);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  // Focus goes back to the button that opened the dialog, not to the page.
  await expect(approve).toBeFocused();
  const row = (await approve.boundingBox())!;
  expect(row.y).toBeGreaterThanOrEqual(0);
  expect(row.y + row.height).toBeLessThanOrEqual(viewport.height);

  await expect(page.getByText('Cost leaderboard')).toBeVisible({
    timeout: 30_000,
  });
  await expect(page.getByText('Audit events')).toBeVisible();
  // The audit trail in sentences, naming the service.
  await expect(
    page
      .getByText(
        new RegExp(
          `^bob asked for approval of ${PREFIX}-\\d\\d \\(team ml-platform\\)`,
        ),
      )
      .first(),
  ).toBeVisible();
  expect.soft(await sidewaysScrolling(page), 'at 1440').toEqual([]);
  expect(await seriousViolations(page, 'main')).toEqual([]);

  await page.setViewportSize({ width: 1280, height: 900 });
  await expect(caption(`11-20 of ${COUNT}`)).toBeVisible();
  const narrow = await buttonLines(page, `approve ${nameOf(12)}`);
  expect(narrow.lines).toBe(1);
  expect.soft(await cellsOutside(approvals), 'cut off at 1280').toEqual([]);
  expect
    .soft(Math.max(...(await rowHeights(approvals))), 'tallest row at 1280')
    .toBeLessThan(MAX_ROW_HEIGHT);
  expect.soft(await sidewaysScrolling(page), 'at 1280').toEqual([]);
  // A reason is read whole in its row, from the keyboard (no hover, no dialog): wrapped inside its cell, in view.
  const fullReason = page.getByRole('button', {
    name: new RegExp(`^Full reasons? for ${nameOf(12)}$`),
  });
  await fullReason.focus();
  await page.keyboard.press('Enter');
  await expect(fullReason).toHaveAttribute('aria-expanded', 'true');
  const reasonText = page.locator(
    `#${await fullReason.getAttribute('aria-controls')}`,
  );
  await expect(reasonText).toBeVisible();
  await expect(reasonText).toContainText(
    /Team 'ml-platform' asks for 1 GPU-equivalents in pool 'spot-l4' but only [\d.]+ of [\d.]+ are free/,
  );
  const reasonBox = (await reasonText.boundingBox())!;
  const reasonCell = (await reasonText
    .locator('xpath=ancestor::td[1]')
    .boundingBox())!;
  expect(reasonBox.x + reasonBox.width).toBeLessThanOrEqual(
    reasonCell.x + reasonCell.width + 1,
  );
  expect(reasonBox.x + reasonBox.width).toBeLessThanOrEqual(1280);
  expect.soft(await cellsOutside(approvals), 'reason open at 1280').toEqual([]);
  await expect(page.getByRole('dialog')).toHaveCount(0);
  expect(await seriousViolations(page, 'main')).toEqual([]);
  await screenshot(page, 'gpu-governance-1280');
  await page.keyboard.press('Enter');
  await expect(reasonText).toBeHidden();

  // The audit rows of the request with a catalog component link to its entity page.
  const auditLink = tableOf(page, 'Audit events')
    .getByRole('link', { name: LINKED, exact: true })
    .first();
  await expect(auditLink).toHaveAttribute(
    'href',
    `/catalog/default/component/${LINKED}`,
  );
  await auditLink.click();
  await expect(
    page.getByRole('heading', { name: LINKED, exact: true }),
  ).toBeVisible({ timeout: 30_000 });

  expect(await consoleProblems.problems()).toEqual([]);
});
