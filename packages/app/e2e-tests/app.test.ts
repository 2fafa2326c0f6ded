import { expect, test } from '@playwright/test';
import { screenshot } from './support/screenshot';
import { signIn } from './support/users';

test('signs in through the proxy (as the org guest) and reaches the GPU page from the sidebar', async ({
  page,
}) => {
  // No sign-in page to click through: the proxy's headers say who this is (app-config.e2e.yaml).
  await signIn(page);
  await expect(page.getByRole('button', { name: 'Enter' })).toHaveCount(0);

  const nav = page.getByRole('navigation', { name: 'sidebar nav' });
  await expect(
    nav.getByRole('link', { name: 'Catalog', exact: true }),
  ).toBeVisible();
  await expect(nav.getByRole('link', { name: /^Notifications/ })).toBeVisible();
  await screenshot(page, 'home');

  await nav.getByRole('link', { name: 'GPU', exact: true }).click();
  await expect(page).toHaveURL(/\/gpu$/);
  await expect(
    page.getByRole('heading', { name: 'GPU governance' }),
  ).toBeVisible();
  await expect(page.getByText('GPU pools')).toBeVisible();
  // The pools table names it; so does the pool capacity table once it has loaded (the pool is oversubscribed).
  await expect(
    page.getByRole('cell', { name: 'l4-ondemand', exact: true }).first(),
  ).toBeVisible();
  await expect(page.getByTestId('cluster-mode')).toContainText('dry-run');
  await screenshot(page, 'gpu-page');
});
