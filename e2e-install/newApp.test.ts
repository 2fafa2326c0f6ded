import { expect, Page, test } from '@playwright/test';

/**
 * A new app from @backstage/create-app with the packed GPU plugins installed (scripts/install-test): the guest signs
 * in on the app's own sign-in page, the GPU governance page renders the platform of app-config.gpu.yaml, and the
 * "GPU model service" template's tier picker quotes the inputs.
 */
async function signInAsGuest(page: Page) {
  await page.goto('/');
  await page.getByRole('button', { name: 'Enter' }).click();
  await expect(
    page.getByRole('link', { name: 'Catalog', exact: true }).first(),
  ).toBeVisible();
}

test('the GPU page is in the sidebar and renders the configured platform', async ({
  page,
}) => {
  await signInAsGuest(page);
  // The plugin's nav item is in the new app's sidebar without any code in the app.
  await page.getByRole('link', { name: 'GPU', exact: true }).click();
  await expect(page).toHaveURL(/\/gpu$/);
  await expect(
    page.getByRole('heading', { name: 'GPU governance' }),
  ).toBeVisible();
  await expect(page.getByText('l4-ondemand').first()).toBeVisible();
  await expect(page.getByText('a100-mig').first()).toBeVisible();
  await expect(page.getByText('guests').first()).toBeVisible();
});

test('the GPU model service template quotes every tier in its tier picker', async ({
  page,
}) => {
  await signInAsGuest(page);
  await page.goto('/create');
  const card = page
    .locator('.MuiCard-root')
    .filter({ has: page.getByText('GPU model service', { exact: true }) });
  await card.getByTestId('template-card-actions--create').click();
  await expect(
    page.getByRole('heading', { name: 'GPU model service' }),
  ).toBeVisible();

  await page.getByLabel(/^Name/).fill('install-test');
  const team = page.getByLabel(/^Owning team/);
  const guests = team.locator('option', { hasText: 'guests' }).first();
  await expect(guests).toBeAttached();
  await team.selectOption((await guests.getAttribute('value'))!);
  await page.getByRole('button', { name: 'Next' }).click();
  // Model and sizing: the template's defaults (Llama 3.1 8B on vLLM, bf16, 8k context, 16 concurrent, dev).
  await page.getByRole('button', { name: 'Next' }).click();

  // One L4 at 0.8048 $/h for a 730 h month; the MIG pool is quoted too.
  const l4 = page.getByTestId('tier-choice-dedicated/l4-ondemand');
  await expect(l4).toContainText('Recommended');
  await expect(l4.getByRole('radio')).toBeChecked();
  await expect(l4.getByTestId('tier-choice-monthly')).toHaveText('$587.50');
  await expect(page.getByTestId('tier-choice-mig/a100-mig')).toBeVisible();
});
