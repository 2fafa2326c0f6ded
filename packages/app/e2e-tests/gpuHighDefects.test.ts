import { expect, test } from '@playwright/test';
import {
  registerGpuComponent,
  removeGpuComponent,
} from './support/localCatalog';
import { seriousViolations } from './support/axe';
import { serviceRequest } from './support/serviceRequest';
import { api, newUserContext, signIn } from './support/users';

/**
 * The high defects of the product walk (issue 25), as people meet them in Chromium:
 * - the dedicated-GPU limit counts every replica: 2 replicas x 2 H100 in dev waits for approval;
 * - the guest's own request says, in text on the page, why the guest cannot decide it, and Alice (platform team)
 *   can;
 * - a service's tier or size is changed from its card;
 * - the report summariser's own existing component `summariser` (examples/entities.yaml) is bound by the template.
 */
const suffix = Date.now().toString(36);
const BIG = `e2e-big-${suffix}`;
const OWN = `e2e-own-${suffix}`;
const SIZED = `e2e-sized-${suffix}`;
const created: string[] = [];

test.afterAll(async ({ request }) => {
  await removeGpuComponent(SIZED);
  for (const id of created) {
    await api(request, 'DELETE', `/api/gpu/services/${id}`);
  }
});

test('a dev service of 2 replicas x 2 H100 waits for approval: the limit counts all replicas', async ({
  page,
  request,
}) => {
  const big = await api(request, 'POST', '/api/gpu/services', {
    request: {
      ...serviceRequest(BIG, { tier: 'dedicated', pool: 'h100' }),
      model: 'llama-3.1-70b',
      replicas: 2,
    },
  });
  created.push(big.id);
  expect(big.placement).toMatchObject({ tier: 'dedicated', gpusPerReplica: 2 });
  expect(big.status).toBe('pending-approval');
  expect(
    big.approval.reasons.map((r: { message: string }) => r.message),
  ).toContain(
    '4 dedicated GPUs (2 replicas x 2) is above the 2 that dev allows without approval',
  );

  await signIn(page);
  await page.goto('/gpu');
  await expect(
    page.getByRole('columnheader', {
      name: 'Dedicated GPUs without approval (all replicas)',
    }),
  ).toBeVisible();
});

test("the guest's own request says why it cannot decide it, and Alice of the platform team decides it", async ({
  browser,
  page,
  request,
}) => {
  test.setTimeout(180_000);
  // spot-l4 is outside ml-platform's quota: the request waits for an approver.
  const own = await api(request, 'POST', '/api/gpu/services', {
    request: serviceRequest(OWN, { tier: 'dedicated', pool: 'spot-l4' }),
  });
  created.push(own.id);
  expect(own.status).toBe('pending-approval');

  await signIn(page);
  await page.goto('/gpu');
  await page.getByLabel('Search pending approvals').fill(OWN);
  const approve = page.getByRole('button', { name: `approve ${OWN}` });
  await expect(approve).toBeDisabled({ timeout: 30_000 });
  // Visible text, not only a tooltip; in OWN's row (the guest's other request may still be listed while the search
  // is on its way).
  const why = page
    .getByRole('row')
    .filter({ hasText: OWN })
    .getByTestId('own-request');
  await expect(why).toBeVisible();
  await expect(why).toContainText(
    'You made this request, so you cannot decide it (four eyes)',
  );

  const alice = await newUserContext(browser, 'alice');
  try {
    const alicePage = await alice.newPage();
    await signIn(alicePage);
    await alicePage.goto('/gpu');
    await alicePage.getByLabel('Search pending approvals').fill(OWN);
    await expect(
      alicePage.getByRole('button', { name: `approve ${OWN}` }),
    ).toBeEnabled({ timeout: 30_000 });
    await expect(alicePage.getByTestId('own-request')).toHaveCount(0);
  } finally {
    await alice.close();
  }
});

test("a service's tier or size is changed from its card, with the cost before and after", async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  const sized = await api(request, 'POST', '/api/gpu/services', {
    request: serviceRequest(SIZED, { tier: 'dedicated', pool: 'l4-ondemand' }),
    entityRef: `component:default/${SIZED}`,
  });
  created.push(sized.id);
  expect(sized.status).toBe('approved');
  await registerGpuComponent(request, SIZED, sized.id);

  await signIn(page);
  await page.goto(`/catalog/default/component/${SIZED}`);
  await page.getByRole('button', { name: 'Change tier or size' }).click();
  const dialog = page.getByRole('dialog', {
    name: `Change tier or size of ${SIZED}`,
  });
  expect(await seriousViolations(page, '[role="dialog"]')).toEqual([]);
  await expect(dialog.getByTestId('change-now')).toContainText(
    `Now: dedicated on l4-ondemand, 1 replica, ${sized.monthlyCost} a month.`,
  );
  await dialog.getByRole('spinbutton', { name: 'Replicas' }).fill('2');
  await expect(dialog.getByTestId('change-cost')).toContainText(
    'After: dedicated on l4-ondemand, 2 replicas,',
  );
  await expect(dialog.getByTestId('change-approval')).toBeVisible();
  await dialog
    .getByRole('button', { name: /^(Apply|Request) the change$/ })
    .click();
  await expect(dialog).toBeHidden();
  const changed = await api(request, 'GET', `/api/gpu/services/${sized.id}`);
  expect(
    changed.request.replicas === 2 || changed.approval?.state === 'pending',
  ).toBe(true);
});

test("the report summariser's own component is bound by the template, with its card's annotation", async ({
  request,
}) => {
  test.setTimeout(240_000);
  const token = (
    await (
      await request.get('/api/auth/oauth2Proxy/refresh', {
        headers: { 'X-Requested-With': 'XMLHttpRequest' },
      })
    ).json()
  ).backstageIdentity.token;
  const headers = { Authorization: `Bearer ${token}` };
  const existing = await request.get(
    '/api/catalog/entities/by-name/component/default/summariser',
    { headers },
  );
  expect(existing.ok()).toBe(true);

  const task = await request.post('/api/scaffolder/v2/tasks', {
    headers,
    data: {
      templateRef: 'template:default/gpu-model-service',
      values: {
        name: 'summariser',
        owner: 'group:default/ml-platform',
        model: 'llama-3.1-8b',
        runtime: 'vllm',
        dtype: 'bf16',
        maxModelLen: 8192,
        concurrency: 16,
        replicas: 1,
        environment: 'dev',
        placement: { tier: 'dedicated', pool: 'l4-ondemand' },
      },
    },
  });
  expect(task.status()).toBe(201);
  const { id } = await task.json();
  let status = '';
  await expect
    .poll(
      async () => {
        const res = await request.get(`/api/scaffolder/v2/tasks/${id}`, {
          headers,
        });
        status = (await res.json()).status;
        return ['completed', 'failed'].includes(status);
      },
      { timeout: 180_000, intervals: [1000, 2000] },
    )
    .toBe(true);
  const events = await (
    await request.get(`/api/scaffolder/v2/tasks/${id}/events`, { headers })
  ).json();
  const log = events
    .map((e: { body: { message?: string } }) => e.body.message ?? '')
    .join('\n');
  expect({ status, log }).toMatchObject({ status: 'completed' });
  // No server path in what the user reads.
  expect(log).not.toMatch(/\/(work|home|tmp|srv)\//);

  const services = await api(
    request,
    'GET',
    `/api/gpu/services?entityRef=${encodeURIComponent(
      'component:default/summariser',
    )}`,
  );
  const bound = services.items.find(
    (s: { status: string }) => !['deleted', 'rejected'].includes(s.status),
  );
  created.push(bound.id);
  await expect
    .poll(
      async () =>
        (
          await (
            await request.get(
              '/api/catalog/entities/by-name/component/default/summariser',
              { headers },
            )
          ).json()
        ).metadata.annotations['gpu.backstage.io/service-id'],
      { timeout: 120_000 },
    )
    .toBe(bound.id);
});
