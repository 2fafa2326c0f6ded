import { expect, test } from '@playwright/test';
import { seriousViolations } from './support/axe';
import { watchConsole } from './support/consoleProblems';
import {
  registerGpuComponent,
  removeGpuComponent,
} from './support/localCatalog';
import { serviceRequest } from './support/serviceRequest';
import { api, signIn } from './support/users';

/**
 * The "Apply recommendation" dialog in Chromium, checked by axe-core like the decision, change-tier, quota and
 * decommission dialogs. The service `embedder` is created through the API on a MIG slice of a100-mig (dry-run) with
 * the name whose pods the e2e Prometheus history carries (a 2g.20gb slice at 8% utilisation with about 6 GB used,
 * support/startBackendWithPrometheus.ts), so its card recommends a smaller slice and offers to apply it.
 */
const ENTITY = 'e2e-embedder';

test.afterAll(async () => {
  await removeGpuComponent(ENTITY);
});

test('the apply-recommendation dialog has no serious accessibility violation and gives the focus back on Cancel', async ({
  page,
  request,
}) => {
  test.setTimeout(150_000);
  const embedder = await api(request, 'POST', '/api/gpu/services', {
    request: serviceRequest('embedder', { tier: 'mig', pool: 'a100-mig' }),
    entityRef: `component:default/${ENTITY}`,
    requestKey: 'e2e-apply-recommendation-embedder',
  });
  expect(embedder.status).toBe('approved');
  await registerGpuComponent(request, ENTITY, embedder.id, {
    description: 'Embeddings on a MIG slice (end-to-end test)',
    kubernetesId: 'embedder',
    system: 'model-serving',
  });

  const consoleProblems = watchConsole(page);
  await signIn(page);
  await page.goto(`/catalog/default/component/${ENTITY}`);
  const card = page
    .locator('.MuiCard-root')
    .filter({ has: page.getByText('GPU usage and cost', { exact: true }) });
  const apply = card.getByRole('button', { name: 'Apply recommendation' });
  await expect(apply).toBeEnabled({ timeout: 60_000 });
  await apply.click();

  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  // The dialog quotes the change as the backend will: wait for the quote before checking.
  await expect(dialog.getByRole('progressbar')).toHaveCount(0, {
    timeout: 30_000,
  });
  await expect(dialog.getByTestId('change-cost')).toBeVisible();
  expect(await seriousViolations(page, '[role="dialog"]')).toEqual([]);

  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  await expect(apply).toBeFocused();
  expect(await consoleProblems.problems()).toEqual([]);
});
