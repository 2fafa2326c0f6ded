import { APIRequestContext, expect, test } from '@playwright/test';
import { createHash } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { api, backstageToken, newUserContext, signIn } from './support/users';

/**
 * The usage card and the governance page against the real backend, whose `gpu.prometheus.baseUrl` points at a real
 * Prometheus loaded with two days of generated DCGM and vLLM history (support/startBackendWithPrometheus.ts). The
 * service `chat` is created through the API (dry-run cluster) with the name whose pods the history's series carry
 * (dedicated L4 in ml-serving, 600 output tokens/s, 12 running and 2 waiting requests, KV cache 41%), registered
 * in the catalog with its `gpu.backstage.io/service-id`, and its entity page must show the card with those numbers.
 * The suite's default user (the org's guest, ml-platform and platform-team) creates it and approves bob's request.
 */
const SCREENSHOTS = 'test-results/screenshots';
/** The local catalog directory the catalog reads (`scaffolder.gpu.catalogDirectory`, app-config.yaml). */
const LOCAL_CATALOG = resolve(__dirname, '../../../local-catalog');
const ENTITY = 'e2e-chat';
const ENTITY_FILE = resolve(LOCAL_CATALOG, `component-default-${ENTITY}.yaml`);

const serviceRequest = (name: string, tier: string, pool: string) => ({
  name,
  team: 'ml-platform',
  namespace: 'ml-serving',
  model: 'llama-3.1-8b',
  runtime: 'vllm',
  dtype: 'bf16',
  maxModelLen: 8192,
  concurrency: 16,
  replicas: 1,
  environment: 'production',
  tier,
  pool,
});

/** Writes the Component into the local catalog directory and refreshes the location that reads it. */
async function registerComponent(
  request: APIRequestContext,
  serviceId: string,
) {
  await writeFile(
    ENTITY_FILE,
    [
      'apiVersion: backstage.io/v1alpha1',
      'kind: Component',
      'metadata:',
      `  name: ${ENTITY}`,
      '  description: Chat model on a dedicated L4 (end-to-end test)',
      '  annotations:',
      `    gpu.backstage.io/service-id: ${serviceId}`,
      '    backstage.io/kubernetes-id: chat',
      '    backstage.io/kubernetes-namespace: ml-serving',
      'spec:',
      '  type: service',
      '  lifecycle: production',
      '  owner: ml-platform',
      '  system: model-serving',
      '',
    ].join('\n'),
  );
  // The Location entity the catalog made of that config location is named like locationSpecToMetadataName does.
  const location = `generated-${createHash('sha1')
    .update(`file:${LOCAL_CATALOG}/*.yaml`)
    .digest('hex')}`;
  await api(
    request,
    'GET',
    `/api/catalog/entities/by-name/location/default/${location}`,
  );
  await api(request, 'POST', '/api/catalog/refresh', {
    entityRef: `location:default/${location}`,
  });
  await expect
    .poll(
      async () => {
        const res = await request.get(
          `/api/catalog/entities/by-name/component/default/${ENTITY}`,
          {
            headers: {
              Authorization: `Bearer ${await backstageToken(request)}`,
            },
          },
        );
        return res.ok()
          ? (await res.json()).metadata.annotations[
              'gpu.backstage.io/service-id'
            ]
          : undefined;
      },
      { timeout: 60_000, intervals: [500, 1000, 2000] },
    )
    .toBe(serviceId);
}

test.afterAll(async () => {
  await rm(ENTITY_FILE, { force: true });
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
    request: serviceRequest('chat', 'dedicated', 'l4-ondemand'),
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
    request: serviceRequest(spotName, 'dedicated', 'spot-l4'),
  });
  await bob.close();
  expect(spot.status).toBe('pending-approval');

  await registerComponent(request, chat.id);
  await signIn(page);
  await page.goto(`/catalog/default/component/${ENTITY}`);
  await expect(page.getByRole('heading', { name: ENTITY })).toBeVisible({
    timeout: 30_000,
  });

  const card = page
    .locator('.MuiCard-root')
    .filter({ has: page.getByText('GPU usage and cost', { exact: true }) });
  await expect(card).toBeVisible({ timeout: 30_000 });
  await expect(
    card.getByText(
      'dedicated on l4-ondemand · 1 replica, 1 GPU-equivalent · production · approved (dry-run)',
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
  await page.screenshot({
    path: `${SCREENSHOTS}/gpu-usage-card.png`,
    fullPage: true,
  });

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
  await page.screenshot({
    path: `${SCREENSHOTS}/gpu-governance-pending.png`,
    fullPage: true,
  });

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
  await page.screenshot({
    path: `${SCREENSHOTS}/gpu-governance-approved.png`,
    fullPage: true,
  });

  const decided = await api(request, 'GET', `/api/gpu/services/${spot.id}`);
  expect(decided.status).toBe('approved');
  expect(decided.approval.comment).toBe('approved by the end-to-end test');
});
