import { expect, Locator, Page } from '@playwright/test';

/** Steps of the software templates' forms (Create page), shared by the tests that fill them in. */

export async function chooseTemplate(page: Page, title: string) {
  await page.goto('/create');
  const card = page
    .locator('.MuiCard-root')
    .filter({ has: page.getByText(title, { exact: true }) });
  await card.getByTestId('template-card-actions--create').click();
  await expect(page.getByRole('heading', { name: title })).toBeVisible();
}

/** Picks `option` in an autocomplete (OwnerPicker, EntityPicker) by typing part of it. */
export async function autocomplete(page: Page, label: RegExp, text: string) {
  await page.getByLabel(label).fill(text);
  await page
    .getByRole('option', { name: new RegExp(text) })
    .first()
    .click();
}

/** The row of a tier on a pool in the picker. */
export function tierRow(page: Page, tier: string, pool: string): Locator {
  return page.getByTestId(`tier-choice-${tier}/${pool}`);
}

/** The monthly cost cell of a row. */
export function monthly(row: Locator): Locator {
  return row.locator('td').nth(3);
}
