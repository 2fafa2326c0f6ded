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

/**
 * Picks `option` in an autocomplete (OwnerPicker, EntityPicker) by typing part of it, or in a native select (the GPU
 * templates' GpuTeamPicker) by the first option containing it.
 */
export async function autocomplete(page: Page, label: RegExp, text: string) {
  const field = page.getByLabel(label);
  if (await field.evaluate(element => element.tagName === 'SELECT')) {
    const option = field.locator('option', { hasText: text }).first();
    await expect(option).toBeAttached();
    await field.selectOption((await option.getAttribute('value'))!);
    return;
  }
  await field.fill(text);
  await page
    .getByRole('option', { name: new RegExp(text) })
    .first()
    .click();
}

/** The row of a tier on a pool in the picker. */
export function tierRow(page: Page, tier: string, pool: string): Locator {
  return page.getByTestId(`tier-choice-${tier}/${pool}`);
}

/** The monthly cost of a row (every replica). */
export function monthly(row: Locator): Locator {
  return row.getByTestId('tier-choice-monthly');
}
