import { expect, Page, test } from '@playwright/test';
import { seriousViolations } from './support/axe';
import { watchConsole } from './support/consoleProblems';
import { tableOf } from './support/governancePage';
import { screenshot } from './support/screenshot';
import { autocomplete, chooseTemplate } from './support/template';
import { signIn } from './support/users';

/**
 * Medium and low defects of the product walk (issue 25) as a keyboard and a small-screen user meets them, signed in
 * as the org's guest (ml-platform and platform-team, examples/org.yaml):
 * - at 1280x800 the first two tier choices are in view after Next, rows a few lines tall, the chosen row's token
 *   prices said once under the table, and the per-1K price says the load it assumes;
 * - focus from the keyboard shows a ring of 2px;
 * - the quota dialog is named, has no serious axe violation, announces a refused Save and moves the focus to the
 *   field to fix, and gives the focus back to its Edit button when it closes;
 * - the audit trail can be narrowed to one team.
 */

/** The outline of the element Material UI marks as focused from the keyboard, or of the focused element. */
async function focusRing(page: Page) {
  return page.evaluate(() => {
    const element =
      document.querySelector('.Mui-focusVisible') ?? document.activeElement!;
    const style = getComputedStyle(element);
    return {
      style: style.outlineStyle,
      width: style.outlineWidth,
      color: style.outlineColor,
    };
  });
}

test('at 1280x800 the first two tier choices are in view after Next, with a visible focus ring', async ({
  page,
}) => {
  test.setTimeout(150_000);
  const consoleProblems = watchConsole(page);
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page);
  await chooseTemplate(page, 'GPU model service');
  await page.getByLabel(/^Name/).fill(`e2e-walk-${Date.now().toString(36)}`);
  await autocomplete(page, /^Owning team/, 'ml-platform');
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByRole('button', { name: 'Next' }).click();

  const rows = page
    .getByRole('radiogroup', { name: 'GPU tier' })
    .locator('tbody tr');
  await expect(rows.first().getByRole('radio')).toBeVisible();
  // No scrolling: both rows wholly inside the window.
  await expect(rows.nth(0)).toBeInViewport({ ratio: 1 });
  await expect(rows.nth(1)).toBeInViewport({ ratio: 1 });
  for (const height of await rows.evaluateAll(trs =>
    trs.map(tr => tr.getBoundingClientRect().height),
  )) {
    expect(height).toBeLessThan(160);
  }
  // The per-1M and per-request prices, once, for the chosen row; the per-1K figure says its load.
  await expect(page.getByTestId('tier-choice-token-prices')).toHaveCount(1);
  await expect(
    page.getByTestId('tier-choice-dedicated/l4-ondemand'),
  ).toContainText('estimate, at full load');
  // Nothing about precisions the form does not offer.
  await expect(page.getByText(/fp32/)).toHaveCount(0);
  expect(await seriousViolations(page, 'form')).toEqual([]);
  await screenshot(page, 'gpu-tier-step-1280x800');

  // Keyboard focus on the chosen radio shows a 2px ring.
  const chosen = page.getByRole('radio', { checked: true });
  await chosen.focus();
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Tab');
  await expect(chosen).toBeFocused();
  const ring = await focusRing(page);
  expect(ring.style).toBe('solid');
  expect(ring.width).toBe('2px');

  await page.setViewportSize({ width: 1440, height: 900 });
  await screenshot(page, 'gpu-tier-step-1440x900');
  expect(await consoleProblems.problems()).toEqual([]);
});

test('the quota dialog is named, announces a refused Save and gives the focus back; the audit trail narrows to a team', async ({
  page,
}) => {
  test.setTimeout(150_000);
  const consoleProblems = watchConsole(page);
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page);
  await page.goto('/gpu');
  const edit = page.getByRole('button', { name: 'Edit quota of search' });
  await expect(edit).toBeEnabled({ timeout: 30_000 });
  await edit.click();
  const dialog = page.getByRole('dialog', { name: 'Quota of search' });
  await expect(dialog).toBeVisible();
  expect(await seriousViolations(page, '[role="dialog"]')).toEqual([]);

  const field = dialog.getByLabel('Quota in spot-l4');
  await field.fill('-2');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByRole('alert')).toContainText(
    'Not saved: quota in spot-l4:',
  );
  await expect(field).toBeFocused();
  expect(await seriousViolations(page, '[role="dialog"]')).toEqual([]);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  await expect(edit).toBeFocused();

  // Keyboard focus on a button of the page shows a 2px ring.
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Tab');
  await expect(edit).toBeFocused();
  const ring = await focusRing(page);
  expect(ring.style).toBe('solid');
  expect(ring.width).toBe('2px');

  // The audit trail of one team.
  await page.getByRole('button', { name: /^Team All teams/ }).click();
  await page.getByRole('option', { name: 'search', exact: true }).click();
  const audit = tableOf(page, 'Audit events of search');
  await expect(audit).toBeVisible();
  expect(await seriousViolations(page, 'main')).toEqual([]);
  await screenshot(page, 'gpu-governance-audit-team-1280');
  expect(await consoleProblems.problems()).toEqual([]);
});
