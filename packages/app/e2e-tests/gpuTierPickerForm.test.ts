import { expect, test } from '@playwright/test';
import { seriousViolations } from './support/axe';
import { watchConsole } from './support/consoleProblems';
import { screenshot } from './support/screenshot';
import { autocomplete, chooseTemplate, tierRow } from './support/template';
import { signIn } from './support/users';

/**
 * The "GPU model service" form as an application engineer uses it: the runtime's choices in full, the sizing step's
 * live fit and cost, a pick in the tier picker kept across Back and Next (and the notice when it is no longer the
 * recommendation), the tier legend, the review step in words; each step has no serious accessibility violation and a
 * screenshot at 1440 and 1280 px, and the page logs no console error or warning of the product.
 */

test('keeps the tier pick across Back and Next, quotes the sizing step live and reviews the choice in words', async ({
  page,
}) => {
  test.setTimeout(150_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  const consoleProblems = watchConsole(page);
  await signIn(page);
  await chooseTemplate(page, 'GPU model service');

  await page.getByLabel(/^Name/).fill(`e2e-form-${Date.now().toString(36)}`);
  // Teams without GPU quota are listed as such and cannot be chosen.
  const team = page.getByLabel(/^Owning team/);
  await expect(
    team.locator('option', { hasText: 'platform-team (no GPU quota)' }),
  ).toBeDisabled();
  await autocomplete(page, /^Owning team/, 'ml-platform');
  // What the team has left of its quota on each pool (l4-ondemand: 4 GPU-equivalents).
  await expect(
    page.getByText(/^GPU quota left: .*\bl4-ondemand \d+ of 4, /),
  ).toBeVisible();
  await page.getByRole('button', { name: 'Next' }).click();

  // The precision follows the runtime: Ollama serves only the catalogue's GGUF tags, so bf16 becomes fp16, said once.
  const precision = page.getByLabel(/^Precision/);
  await expect(precision).toHaveValue('bf16');
  // The runtime select is a button opening a listbox (labelled by the same label while it is open).
  const runtime = page.getByRole('button', { name: /^Runtime/ });
  await runtime.click();
  await page
    .getByRole('option', { name: 'Ollama (simple, quantised models)' })
    .click();
  await expect(page.getByRole('listbox')).toHaveCount(0);
  await expect(precision).toHaveValue('fp16');
  await expect(precision.locator('option')).toHaveText([
    'fp16 (GGUF f16)',
    'int8 (GGUF q8_0)',
    'int4 (GGUF q4_K_M)',
  ]);
  await expect(
    page.getByText('Ollama serves no bf16 of this model: fp16 chosen'),
  ).toBeVisible();
  await expect(page.getByTestId('quote-summary-fit')).toBeVisible();

  // The runtime's choices read in full (the template's labels hold commas).
  await runtime.click();
  await expect(page.getByRole('option')).toHaveText([
    'vLLM (OpenAI-compatible API, continuous batching)',
    'Ollama (simple, quantised models)',
  ]);
  await page
    .getByRole('option', {
      name: 'vLLM (OpenAI-compatible API, continuous batching)',
    })
    .click();
  await expect(page.getByRole('listbox')).toHaveCount(0);
  await precision.selectOption('bf16');

  // The sizing step quotes as the user types.
  const recommended = page.getByTestId('quote-summary-recommended');
  await expect(recommended).toContainText(
    'Recommended: Dedicated on l4-ondemand, 1 x L4 per replica',
  );
  await expect(recommended).toContainText('$587.50 a month (1 replica)');
  await expect(recommended).toContainText('per 1K output tokens (estimate)');
  await page.getByLabel(/^Replicas/).fill('2');
  await expect(recommended).toContainText(
    '$1,175.01 a month (2 replicas x $587.50)',
  );
  await expect(page.getByTestId('quote-summary')).toContainText(
    'A month is 730 h',
  );
  await screenshot(page, 'gpu-form-sizing-1440');
  expect(await seriousViolations(page, 'form')).toEqual([]);
  await page.setViewportSize({ width: 1280, height: 900 });
  await screenshot(page, 'gpu-form-sizing-1280');
  expect(await seriousViolations(page, 'form')).toEqual([]);
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.getByLabel(/^Replicas/).fill('1');
  await expect(recommended).toContainText('$587.50 a month (1 replica)');
  await page.getByRole('button', { name: 'Next' }).click();

  // The user picks the recommended row themselves.
  const l4 = tierRow(page, 'dedicated', 'l4-ondemand');
  await expect(l4).toContainText('Recommended');
  await l4.getByRole('radio').click();
  await expect(l4.getByRole('radio')).toBeChecked();
  await expect(page.getByTestId('tier-legend')).toContainText(
    'Rule of thumb: dedicated for latency-critical production',
  );

  // Back to sizing, int4, Next: the recommendation moves, the pick stays, and the picker says so.
  await page.getByRole('button', { name: 'Back' }).click();
  await page.getByLabel(/^Precision/).selectOption('int4');
  await expect(recommended).not.toContainText('Dedicated on l4-ondemand');
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(l4.getByRole('radio')).toBeChecked();
  const notice = page.getByTestId('tier-picker-not-recommended');
  await expect(notice).toContainText(
    'Your pick is no longer the recommended tier',
  );
  await expect(notice).toContainText(
    'Dedicated on l4-ondemand ($587.50 a month) is kept',
  );
  await expect(l4).not.toContainText('Recommended');

  // Once more Back and Next: still the user's pick.
  await page.getByRole('button', { name: 'Back' }).click();
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(l4.getByRole('radio')).toBeChecked();
  await expect(notice).toBeVisible();

  // A radio group: arrow keys move the choice to the next row that can be picked, and back.
  const group = page.getByRole('radiogroup', { name: 'GPU tier' });
  await l4.getByRole('radio').focus();
  await page.keyboard.press('ArrowDown');
  await expect(l4.getByRole('radio')).not.toBeChecked();
  await expect(group.getByRole('radio', { checked: true })).toBeFocused();
  await page.keyboard.press('ArrowUp');
  await expect(l4.getByRole('radio')).toBeChecked();
  await expect(l4.getByRole('radio')).toBeFocused();

  await screenshot(page, 'gpu-form-tier-1440');
  expect(await seriousViolations(page, 'form')).toEqual([]);
  await page.setViewportSize({ width: 1280, height: 900 });
  await screenshot(page, 'gpu-form-tier-1280');
  expect(await seriousViolations(page, 'form')).toEqual([]);

  // The review says where it runs, what it costs and whether it needs approval, not the picker's keys.
  await page.getByRole('button', { name: 'Review' }).click();
  await expect(page.getByText('Placement', { exact: true })).toBeVisible();
  await expect(
    page.getByText('Dedicated on l4-ondemand: 1 x L4 per replica', {
      exact: true,
    }),
  ).toBeVisible();
  await expect(
    page.getByText('$587.50 a month: 1 replica (a month of 730 h)', {
      exact: true,
    }),
  ).toBeVisible();
  await expect(
    page.getByText('Not needed: allowed in dev', { exact: true }),
  ).toBeVisible();
  await expect(page.getByText('Model', { exact: true })).toBeVisible();
  await expect(page.getByText('int4', { exact: true })).toBeVisible();
  for (const key of ['Needs Approval', 'Chosen By', 'Gpus Per Replica']) {
    await expect(page.getByText(key, { exact: true })).toHaveCount(0);
  }
  await screenshot(page, 'gpu-form-review-1280');
  expect(await seriousViolations(page, 'article')).toEqual([]);
  await page.setViewportSize({ width: 1440, height: 900 });
  await screenshot(page, 'gpu-form-review-1440');
  expect(await seriousViolations(page, 'article')).toEqual([]);

  await page.getByRole('button', { name: 'Create' }).click();
  await expect(
    page.getByRole('link', { name: 'Open the service in the catalog' }),
  ).toBeVisible({ timeout: 60_000 });
  await expect(
    page.getByText(/ is approved \(rendered only: no cluster is configured\)/),
  ).toBeVisible();
  expect(await consoleProblems.problems()).toEqual([]);
});
