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
 * The self-service flow on the real app and backend (dry-run cluster): the "GPU model service" template with live
 * quotes from the tier picker, the new Component's page, then "Decommission GPU model service" on it. Signed in as
 * the org's guest (member of ml-platform), the suite's default user. The page logs no console error or warning of
 * the product.
 */

test('creates a GPU model service with live quotes, opens its page, then decommissions it', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const name = `e2e-${Date.now().toString(36)}`;
  const consoleProblems = watchConsole(page);
  await signIn(page);

  await chooseTemplate(page, 'GPU model service');
  await page.getByLabel(/^Name/).fill(name);
  await autocomplete(page, /^Owning team/, 'ml-platform');
  await page.getByRole('button', { name: 'Next' }).click();
  // Model and sizing: the template's defaults (Llama 3.1 8B on vLLM, bf16, 8k context, 16 concurrent, dev).
  await page.getByRole('button', { name: 'Next' }).click();

  // The picker quotes the inputs: every tier and pool, the recommendation preselected.
  const l4 = tierRow(page, 'dedicated', 'l4-ondemand');
  await expect(l4).toContainText('Recommended');
  await expect(l4.getByRole('radio')).toBeChecked();
  await expect(monthly(l4)).toHaveText('$587.50');
  await expect(l4).toContainText('Full');
  await expect(tierRow(page, 'mps', 'l4-mps')).toContainText(
    'Does not fit: needs',
  );
  const spot = tierRow(page, 'dedicated', 'spot-l4');
  await expect(spot).toContainText('Needs approval');

  // Choosing a tier that needs approval says why; choosing back clears it.
  await spot.getByRole('radio').check();
  await expect(
    page.getByText('Info: Dedicated on spot-l4 needs approval'),
  ).toBeVisible();
  await screenshot(page, 'gpu-template-approval');
  await l4.getByRole('radio').check();
  await expect(
    page.getByText('Info: Dedicated on spot-l4 needs approval'),
  ).toBeHidden();

  // A changed input re-quotes: two replicas of 0.8048 $/h x 730 h ($587.504 each, $587.50 shown).
  await page.getByRole('button', { name: 'Back' }).click();
  await page.getByLabel(/^Replicas/).fill('2');
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(monthly(l4)).toHaveText('$1,175.01');
  await expect(l4.getByRole('radio')).toBeChecked();
  await screenshot(page, 'gpu-template-form');

  await page.getByRole('button', { name: 'Review' }).click();
  await page.getByRole('button', { name: 'Create' }).click();
  const openEntity = page.getByRole('link', {
    name: 'Open the service in the catalog',
  });
  await expect(openEntity).toBeVisible({ timeout: 60_000 });
  await expect(
    page.getByText(
      new RegExp(
        `^${name} is approved \\(rendered only: no cluster is configured\\)`,
      ),
    ),
  ).toBeVisible();
  await screenshot(page, 'gpu-template-result');

  await openEntity.click();
  await expect(page.getByRole('heading', { name })).toBeVisible({
    timeout: 30_000,
  });
  await expect(page.getByText('About', { exact: true })).toBeVisible();
  await screenshot(page, 'gpu-entity-page');

  await chooseTemplate(page, 'Decommission GPU model service');
  // The picker lists components backed by a GPU service; it picks the only one by itself.
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
  await screenshot(page, 'gpu-decommission-result');
  expect(await consoleProblems.problems()).toEqual([]);
});
