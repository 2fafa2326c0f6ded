import { expect, Page, test } from '@playwright/test';
import { seriousViolations } from './support/axe';
import { watchConsole } from './support/consoleProblems';
import {
  registerGpuComponent,
  removeGpuComponent,
} from './support/localCatalog';
import { SCREENSHOTS, screenshot } from './support/screenshot';
import { serviceRequest } from './support/serviceRequest';
import { api, newUserContext, signIn } from './support/users';

/**
 * The entity page of GPU model services as people use it (dry-run cluster, signed in as the org's guest, member of
 * ml-platform): the GPU summary at the top of the overview, a request waiting for approval shown as such (no 404,
 * no cost error), then rejected, the GPU tab, the Kubernetes tab without an error when no cluster is configured, and
 * Decommission from the entity. axe-core checks the page's content (the GPU card included) at 1440 and 1280 px, and
 * the page logs no console error or warning of the product.
 */
const suffix = Date.now().toString(36);
const RUNNING = `e2e-entity-${suffix}`;
const WAITING = `e2e-waiting-${suffix}`;

async function openEntity(page: Page, name: string, tab = '') {
  await page.goto(`/catalog/default/component/${name}${tab}`);
  await expect(page.getByRole('heading', { name, exact: true })).toBeVisible({
    timeout: 30_000,
  });
}

let waitingId: string | undefined;

test.afterAll(async ({ request }) => {
  await removeGpuComponent(RUNNING);
  await removeGpuComponent(WAITING);
  if (waitingId) {
    await api(request, 'DELETE', `/api/gpu/services/${waitingId}`);
  }
});

test('the entity page: summary, a waiting then rejected request, the GPU tab, the Kubernetes tab on a dry run, and Decommission', async ({
  browser,
  page,
  request,
}) => {
  test.setTimeout(240_000);
  const consoleProblems = watchConsole(page);
  await signIn(page);

  // A dedicated L4 within ml-platform's quota: approved, dry-run. A dedicated spot L4, where ml-platform has no
  // quota: waits for an approver.
  const running = await api(request, 'POST', '/api/gpu/services', {
    request: serviceRequest(RUNNING, {
      tier: 'dedicated',
      pool: 'l4-ondemand',
    }),
    entityRef: `component:default/${RUNNING}`,
  });
  expect(running.status).toBe('approved');
  expect(running.mode).toBe('dry-run');
  const waiting = await api(request, 'POST', '/api/gpu/services', {
    request: serviceRequest(WAITING, { tier: 'dedicated', pool: 'spot-l4' }),
    entityRef: `component:default/${WAITING}`,
  });
  expect(waiting.status).toBe('pending-approval');
  waitingId = waiting.id;
  await registerGpuComponent(request, RUNNING, running.id);
  await registerGpuComponent(request, WAITING, waiting.id);

  // The waiting request: its state on the card and in the summary, no 404 and no cost error.
  await page.setViewportSize({ width: 1440, height: 900 });
  await openEntity(page, WAITING);
  const waitingNotice = page.getByTestId('lifecycle-pending');
  await expect(waitingNotice).toContainText('Waiting for approval');
  await expect(waitingNotice).toContainText('Requested by guest');
  await expect(page.getByTestId('lifecycle-held')).toContainText(
    'Nothing is held yet: approving reserves 1 GPU-equivalent dedicated on spot-l4',
  );
  await expect(page.getByTestId('summary-status')).toContainText(
    'Waiting for approval',
  );
  await expect(page.getByTestId('summary-month-to-date')).toContainText(
    'nothing held',
  );
  await expect(page.getByText(/HTTP 404/)).toHaveCount(0);
  await expect(page.getByText(/Could not load/)).toHaveCount(0);
  await screenshot(page, 'gpu-entity-waiting-1440');

  // The approved dry run: the summary near the top of the overview, above the fold.
  await openEntity(page, RUNNING);
  const summary = page.getByTestId('gpu-summary');
  await expect(page.getByTestId('summary-tier')).toContainText('dedicated');
  await expect(page.getByTestId('summary-pool')).toContainText('l4-ondemand');
  await expect(page.getByTestId('summary-status')).toContainText(
    'approved (dry run, no cluster)',
  );
  await expect(page.getByTestId('summary-month-to-date')).toContainText(
    'dry run',
  );
  const box = await summary.boundingBox();
  expect(box!.y).toBeLessThan(900);
  expect(await seriousViolations(page, 'main')).toEqual([]);
  await screenshot(page, 'gpu-entity-overview-1440');
  await page.setViewportSize({ width: 1280, height: 900 });
  await expect(summary).toBeVisible();
  expect(await seriousViolations(page, 'main')).toEqual([]);
  await screenshot(page, 'gpu-entity-overview-1280');

  // The Kubernetes tab of a dry run: says no cluster is configured, no error.
  await page.locator(`a[href$="/component/${RUNNING}/kubernetes"]`).click();
  await expect(
    page.getByText('No Kubernetes cluster configured (dry-run)'),
  ).toBeVisible();
  await expect(page.getByText(/Something went wrong|Error:/i)).toHaveCount(0);

  // The GPU tab: the card with what the cluster says (nothing applied) and its cost.
  await page.locator(`a[href$="/component/${RUNNING}/gpu"]`).click();
  await expect(page).toHaveURL(new RegExp(`/component/${RUNNING}/gpu$`));
  await expect(page.getByTestId('cluster-not-read')).toContainText(
    'No cluster is configured (dry-run)',
  );
  await expect(page.getByTestId('accrual-notice')).toContainText(
    'dry run, nothing is running',
  );
  expect(await seriousViolations(page, 'main')).toEqual([]);
  await screenshot(page, 'gpu-entity-tab-1280');
  await page.setViewportSize({ width: 1440, height: 900 });
  expect(await seriousViolations(page, 'main')).toEqual([]);
  await screenshot(page, 'gpu-entity-tab-1440');

  // Decommission from the entity: what it frees, then the service deleted.
  await page.getByRole('button', { name: 'Decommission' }).click();
  const dialog = page.getByRole('dialog', {
    name: `Decommission ${RUNNING}?`,
  });
  await expect(dialog).toContainText(
    'Frees 1 whole GPU (1 replica, dedicated on l4-ondemand).',
  );
  await expect(dialog).toContainText(
    "Releases 1 GPU-equivalent of team ml-platform's quota on l4-ondemand.",
  );
  await expect(dialog).toContainText('Stops $587.50 a month');
  expect(await seriousViolations(page, 'main')).toEqual([]);
  // The dialog is portalled outside main: axe checks it on its own, as the decision, change and quota dialogs.
  expect(await seriousViolations(page, '[role="dialog"]')).toEqual([]);
  await page.screenshot({
    path: `${SCREENSHOTS}/gpu-entity-decommission-1440.png`,
  });
  await dialog.getByRole('button', { name: 'Decommission' }).click();
  await expect(page.getByTestId('lifecycle-deleted')).toContainText(
    'Decommissioned',
  );
  const after = await api(request, 'GET', `/api/gpu/services/${running.id}`);
  expect(after.status).toBe('deleted');

  // The waiting request, rejected by an approver (nobody decides their own request): who and why, no 404.
  const alice = await newUserContext(browser, 'alice');
  await api(
    alice.request,
    'POST',
    `/api/gpu/approvals/${waiting.approval.id}/reject`,
    { comment: 'use the on-demand pool' },
  );
  await alice.close();
  waitingId = undefined;
  await openEntity(page, WAITING);
  const rejected = page.getByTestId('lifecycle-rejected');
  await expect(rejected).toContainText('Request rejected');
  await expect(rejected).toContainText('Rejected by alice');
  await expect(rejected).toContainText('use the on-demand pool');
  await expect(page.getByTestId('lifecycle-held')).toContainText(
    'Nothing is held: no GPUs, quota or cost.',
  );
  await expect(page.getByText(/HTTP 404/)).toHaveCount(0);
  await expect(page.getByText(/Could not load/)).toHaveCount(0);
  expect(await seriousViolations(page, 'main')).toEqual([]);
  await screenshot(page, 'gpu-entity-rejected-1440');

  expect(await consoleProblems.problems()).toEqual([]);
});
