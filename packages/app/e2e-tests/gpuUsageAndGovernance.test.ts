import { expect, test } from '@playwright/test';
import { readFile } from 'node:fs/promises';
import { seriousViolations } from './support/axe';
import { watchConsole } from './support/consoleProblems';
import {
  cellsOutside,
  scrollsSideways,
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
 * The usage card and the governance page against the real backend, whose `gpu.prometheus.baseUrl` points at a real
 * Prometheus loaded with two days of generated DCGM and vLLM history (support/startBackendWithPrometheus.ts). The
 * service `chat` is created through the API (dry-run cluster) with the name whose pods the history's series carry
 * (dedicated L4 in ml-serving, 600 output tokens/s, 12 running and 2 waiting requests, KV cache 41%), registered
 * in the catalog with its `gpu.backstage.io/service-id`, and its entity page must show the card with those numbers.
 * The suite's default user (the org's guest, ml-platform and platform-team) creates it and approves bob's request;
 * the leaderboards show every column at 1440 and 1280 px, and the pages log no console error or warning of the
 * product.
 */
const ENTITY = 'e2e-chat';
/** The label of figures from simulated series (plugins/gpu SimulatedMetricsLabel). */
const SIMULATED_METRICS_LABEL = 'Simulated metrics — demo data, not measured';

test.afterAll(async () => {
  await removeGpuComponent(ENTITY);
});

test('the entity card shows real Prometheus numbers and the governance page approves a request', async ({
  browser,
  page,
  request,
}) => {
  test.setTimeout(180_000);
  const prometheus = JSON.parse(
    await readFile('test-results/e2e-prometheus.json', 'utf8'),
  );
  expect(prometheus.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

  // A dedicated L4 whose pods are the history's `chat-...` pods; fits ml-platform's quota, so approved (dry-run).
  const chat = await api(request, 'POST', '/api/gpu/services', {
    request: serviceRequest(
      'chat',
      { tier: 'dedicated', pool: 'l4-ondemand' },
      'production',
    ),
    entityRef: `component:default/${ENTITY}`,
    requestKey: 'e2e-usage-card-chat',
  });
  expect(chat.status).toBe('approved');
  expect(chat.mode).toBe('dry-run');
  // ml-platform has no quota on spot-l4: this one waits for an approver. Bob (ml-platform) asks for it: nobody
  // decides their own request, so the guest approves it below.
  const spotName = `e2e-spot-${Date.now().toString(36)}`;
  const bob = await newUserContext(browser, 'bob');
  const spot = await api(bob.request, 'POST', '/api/gpu/services', {
    request: serviceRequest(
      spotName,
      { tier: 'dedicated', pool: 'spot-l4' },
      'production',
    ),
  });
  await bob.close();
  expect(spot.status).toBe('pending-approval');

  await registerGpuComponent(request, ENTITY, chat.id, {
    description: 'Chat model on a dedicated L4 (end-to-end test)',
    kubernetesId: 'chat',
    lifecycle: 'production',
    system: 'model-serving',
  });
  const consoleProblems = watchConsole(page);
  await signIn(page);
  await page.goto(`/catalog/default/component/${ENTITY}`);
  await expect(page.getByRole('heading', { name: ENTITY })).toBeVisible({
    timeout: 30_000,
  });

  const card = page
    .locator('.MuiCard-root')
    .filter({ has: page.getByText('GPU usage and cost', { exact: true }) });
  await expect(card).toBeVisible({ timeout: 30_000 });
  // The history is generated, and the backend says so (gpu.prometheus.simulated, as ./scripts/start --cluster sets
  // for its demo Prometheus): the card labels its figures.
  await expect(card.getByText(SIMULATED_METRICS_LABEL)).toBeVisible({
    timeout: 30_000,
  });
  await expect(
    card.getByText(
      'dedicated on l4-ondemand · 1 replica, 1 GPU-equivalent · production · approved (dry run, no cluster)',
    ),
  ).toBeVisible();
  // From the generated series: constant vLLM gauges and counters, DCGM waves around their means.
  await expect(card.getByTestId('figure-tokens')).toBeVisible({
    timeout: 30_000,
  });
  // 600 tokens/s while the history runs; it ends two hours ago, so about 22 of the window's 24 hours.
  const tokensPerSecond = Number(
    await card
      .getByTestId('figure-tokens')
      .locator('.MuiTypography-h6')
      .innerText(),
  );
  expect(tokensPerSecond).toBeGreaterThan(530);
  expect(tokensPerSecond).toBeLessThanOrEqual(550);
  await expect(card.getByTestId('figure-xid')).toContainText('XID 79');
  await expect(card.getByTestId('figure-queue')).toContainText('2 waiting');
  await expect(card.getByTestId('figure-queue')).toContainText(
    '12 running, KV cache 41%',
  );
  // p95 of the generated histogram: 2.5 s + (0.95 - 0.9) / (0.98 - 0.9) x 2.5 s = 4.06 s.
  await expect(card.getByTestId('figure-latency')).toContainText(/4\.0[67] s/);
  const utilisation = await card
    .getByTestId('figure-utilisation')
    .locator('.MuiTypography-h6')
    .innerText();
  const percent = Number(utilisation.replace('%', ''));
  expect(percent).toBeGreaterThan(40);
  expect(percent).toBeLessThan(85);
  await expect(card.getByTestId('figure-utilisation')).toContainText(
    "DCGM GPU utilisation of the service's 1 GPU",
  );
  // About 20,000 MiB used of the L4's 24 GiB.
  await expect(card.getByTestId('figure-memory')).toContainText(
    /19\.\d GiB \/ 24\.0 GiB/,
  );
  await expect(
    card.getByRole('img', { name: /^GPU utilisation: average \d+% over 24h$/ }),
  ).toBeVisible();
  await expect(
    card.getByRole('img', { name: /^GPU memory used vs allocated: peak / }),
  ).toBeVisible();
  // The demo cluster is a dry run: nothing runs, so the card shows the allocation as reserved (an L4 at $0.8048 x
  // 730 h = $587.50 a month), not as spend, and no spend figures.
  await expect(card.getByTestId('accrual-notice')).toContainText(
    'Reserved $587.50 a month — dry run, nothing is running',
  );
  await expect(card.getByTestId('accrual-notice')).toContainText(
    'reserved allocation, not spend',
  );
  await expect(card.getByTestId('figure-projected')).toHaveCount(0);
  await card.scrollIntoViewIfNeeded();
  await screenshot(page, 'gpu-usage-card');
  expect(await seriousViolations(page, 'main')).toEqual([]);

  // Another window reloads the figures.
  await card.getByRole('button', { name: 'Window' }).click();
  await page.getByRole('option', { name: 'Last 7 days' }).click();
  await expect(
    card.getByRole('img', { name: /^GPU utilisation: average \d+% over 7d$/ }),
  ).toBeVisible();

  // The governance page: the pending spot request, approved with a comment.
  await page.goto('/gpu');
  await expect(
    page.getByRole('heading', { name: 'GPU governance' }),
  ).toBeVisible();
  const approve = page.getByRole('button', { name: `approve ${spotName}` });
  await expect(approve).toBeEnabled({ timeout: 30_000 });
  await expect(page.getByText(/spot-l4/).first()).toBeVisible();
  await expect(page.getByText('Budget burn')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('overview-totals')).toContainText(
    'PromQL queries',
  );
  // The cost overview's figures come from the same generated series: labelled too.
  await expect(page.getByText(SIMULATED_METRICS_LABEL)).toBeVisible();
  // Every column of the leaderboards in view, without a sideways scroll, at both widths.
  for (const width of [1440, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    for (const title of ['Cost leaderboard', 'Waste leaderboard']) {
      const table = tableOf(page, title);
      await expect(table.locator('tbody tr').first()).toBeVisible();
      expect(await table.locator('thead th').count()).toBeGreaterThan(4);
      expect(await cellsOutside(table), `${title} at ${width}`).toEqual([]);
      expect(await scrollsSideways(table), `${title} at ${width}`).toBe(false);
    }
  }
  await screenshot(page, 'gpu-governance-pending');

  await approve.click();
  const dialog = page.getByRole('dialog');
  await dialog
    .getByLabel('Comment (optional)')
    .fill('approved by the end-to-end test');
  // Nothing of spot-l4 is in ml-platform's quota: granting it anyway is an explicit choice.
  await dialog
    .getByLabel("Approve even if it does not fit the team's quota or budget")
    .check();
  await dialog.getByRole('button', { name: 'Approve' }).click();
  await expect(
    page.getByText(
      new RegExp(
        `Approved ${spotName}: the service is now (approved|starting|ready)\\.`,
      ),
    ),
  ).toBeVisible();
  await expect(
    page.getByRole('button', { name: `approve ${spotName}` }),
  ).toBeHidden();
  await expect(page.getByTestId('quota-ml-platform')).toContainText(
    'spot-l4: 1 of 0',
  );
  await expect(
    page.getByText(/approved the request for/).first(),
  ).toBeVisible();
  await screenshot(page, 'gpu-governance-approved');

  const decided = await api(request, 'GET', `/api/gpu/services/${spot.id}`);
  expect(decided.status).toBe('approved');
  expect(decided.approval.comment).toBe('approved by the end-to-end test');
  expect(await consoleProblems.problems()).toEqual([]);
});
