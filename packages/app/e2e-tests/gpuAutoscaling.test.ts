import { expect, test } from '@playwright/test';
import { watchConsole } from './support/consoleProblems';
import { screenshot } from './support/screenshot';
import {
  autocomplete,
  chooseTemplate,
  monthly,
  tierRow,
} from './support/template';
import { signIn } from './support/users';

/**
 * Autoscaling chosen in the "GPU model service" template (issue 30), on the real app and backend (dry-run cluster,
 * app-config.e2e.yaml: scale to zero through KEDA's HTTP add-on, the default gpu.admission.autoscaledReplicas
 * `maximum`), as the org's guest (member of ml-platform): the form offers scale to zero, the tier picker prices it at
 * its maximum and says so, and the new service's GPU card shows its replica range and the endpoint that wakes it.
 * Then it is decommissioned. The page logs no console error or warning of the product.
 */
test('scale to zero chosen in the template: priced at its maximum in the tier picker, its range and wake endpoint on the card', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const name = `e2e-zero-${Date.now().toString(36)}`;
  const consoleProblems = watchConsole(page);
  await signIn(page);

  await chooseTemplate(page, 'GPU model service');
  await page.getByLabel(/^Name/).fill(name);
  await autocomplete(page, /^Owning team/, 'ml-platform');
  await page.getByRole('button', { name: 'Next' }).click();

  // Model and sizing: the defaults (Llama 3.1 8B on vLLM, dev), scaling to zero, up to two replicas.
  await page.getByLabel(/^Scaling/).click();
  await expect(
    page.getByRole('option', { name: /^Autoscale on the queue/ }),
  ).toBeVisible();
  await page.getByRole('option', { name: /^Scale to zero when idle/ }).click();
  const maximum = page.getByLabel(/^Maximum replicas/);
  await expect(maximum).toHaveValue('1');
  await maximum.fill('2');
  await expect(page.getByLabel(/^Minimum replicas/)).toHaveValue('0');
  await page.getByRole('button', { name: 'Next' }).click();

  // The picker quotes the scaling chosen: two dedicated L4s reserved and priced (0.8048 $/h x 730 h each), and says
  // why: the platform prices an autoscaled service at its maximum.
  const l4 = tierRow(page, 'dedicated', 'l4-ondemand');
  await expect(monthly(l4)).toHaveText('$1,175.01');
  await expect(l4.getByTestId('tier-choice-per-replica')).toHaveText(
    '2 replicas (maximum) x $587.50',
  );
  await l4.getByRole('radio').check();
  await expect(page.getByTestId('tier-choice-scaling-cost')).toHaveText(
    "Scales to zero when idle, up to 2 replicas: priced and reserved at the maximum, 2 replicas ($1,175.01 a month), so every replica it scales to is held in the team's quota.",
  );
  await screenshot(page, 'gpu-template-scale-to-zero');

  await page.getByRole('button', { name: 'Review' }).click();
  await expect(
    page.getByText(/^\$1,175\.01 a month: 2 replicas \(maximum\)/),
  ).toBeVisible();
  await page.getByRole('button', { name: 'Create' }).click();
  const openEntity = page.getByRole('link', {
    name: 'Open the service in the catalog',
  });
  await expect(openEntity).toBeVisible({ timeout: 60_000 });
  // The run's result: what it costs a month, and the endpoint that wakes it.
  await expect(
    page.locator('p', {
      hasText: `${name} is approved (rendered only: no cluster is configured): dedicated on l4-ondemand, $1,175.01 a month.`,
    }),
  ).toBeVisible();
  await expect(
    page.locator('p', {
      hasText: `Endpoint (inside the cluster): http://keda-add-ons-http-interceptor-proxy.keda.svc.cluster.local:8080 with Host: ${name}.ml-platform.svc.cluster.local (a request there wakes the service when it is scaled to zero)`,
    }),
  ).toBeVisible();

  // The card: the replica range asked for (nothing runs on a dry run) and the interceptor's endpoint with the Host
  // that routes to the service.
  await openEntity.click();
  await expect(page.getByRole('heading', { name })).toBeVisible({
    timeout: 30_000,
  });
  await page.locator(`a[href$="/component/${name}/gpu"]`).click();
  // Under the title: the range, and the two GPU-equivalents its reservation holds at the maximum.
  await expect(
    page.getByText(
      'dedicated on l4-ondemand · 0 to 2 replicas, 2 GPU-equivalents · dev · approved (dry run, no cluster)',
    ),
  ).toBeVisible();
  const section = page.getByTestId('autoscaling-section');
  await expect(section).toContainText('Autoscaling (KEDA, on the queue');
  await expect(section.getByTestId('replicas-min')).toContainText('0');
  await expect(section.getByTestId('replicas-min')).toContainText(
    'scales to zero',
  );
  await expect(section.getByTestId('replicas-max')).toContainText('2');
  await expect(section.getByTestId('wake-endpoint')).toHaveText(
    `Wake endpoint: http://keda-add-ons-http-interceptor-proxy.keda.svc.cluster.local:8080 with Host: ${name}.ml-platform.svc.cluster.local. A request there is held while the service scales from zero, then answered.`,
  );
  await screenshot(page, 'gpu-entity-scale-to-zero');

  await chooseTemplate(page, 'Decommission GPU model service');
  const service = page.getByLabel(/^GPU model service/);
  await expect(service).toBeVisible();
  if (await service.isEditable()) {
    await autocomplete(page, /^GPU model service/, name);
  }
  await expect(service).toHaveValue(new RegExp(name));
  await page.getByRole('button', { name: 'Review' }).click();
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByText(/1 GPU service\(s\) deleted/)).toBeVisible({
    timeout: 60_000,
  });
  expect(await consoleProblems.problems()).toEqual([]);
});
