import { expect, Page, test } from '@playwright/test';
import { watchConsole } from '../support/consoleProblems';
import {
  registerGpuComponent,
  removeGpuComponent,
} from '../support/localCatalog';
import { screenshot } from '../support/screenshot';
import { autocomplete, chooseTemplate, tierRow } from '../support/template';
import { serviceRequest } from '../support/serviceRequest';
import { api, signIn } from '../support/users';

/**
 * A fleet of two local control planes (startFleetBackend.ts): the template's tier step lists each option with its
 * cluster; a dev service on `local` and a production service on `prod-local`, each admitted by its own cluster's
 * Kueue and running on its kwok GPU nodes; each service's page names its cluster and its Kubernetes tab shows its
 * pods from that cluster only (the entity's `backstage.io/kubernetes-cluster`).
 */
const DEV = 'e2e-fleet-dev';
const PROD = 'e2e-fleet-prod';
const CLUSTER_TITLES = {
  local: 'Local control plane (kwok GPU nodes)',
  'prod-local': 'Second local control plane, production (kwok GPU nodes)',
};

type ServiceView = {
  id: string;
  status: string;
  statusReason?: string;
  cluster: string;
  annotations: Record<string, string>;
};

const created: string[] = [];

test.afterAll(async ({ request }) => {
  for (const id of created) {
    await api(request, 'DELETE', `/api/gpu/services/${id}`).catch(
      () => undefined,
    );
  }
  await removeGpuComponent(DEV);
  await removeGpuComponent(PROD);
});

async function openKubernetesTab(page: Page, name: string) {
  await page.goto(`/catalog/default/component/${name}/kubernetes`);
  await expect(page.getByRole('heading', { name, exact: true })).toBeVisible();
}

test("each service's Kubernetes tab shows its pods from its own cluster", async ({
  page,
  request,
}) => {
  test.setTimeout(300_000);
  const consoleProblems = watchConsole(page);
  await signIn(page);

  // A dev service (a MIG slice of the dev cluster's A100s) and a production one (a dedicated on-demand L4, a pool of
  // the production cluster): the backend places each on its pool's cluster.
  const requests = {
    [DEV]: {
      ...serviceRequest(DEV, { tier: 'mig', pool: 'a100-mig' }),
      model: 'llama-3.2-3b',
      dtype: 'int4',
      maxModelLen: 2048,
      concurrency: 2,
    },
    [PROD]: serviceRequest(
      PROD,
      { tier: 'dedicated', pool: 'l4-ondemand' },
      'production',
    ),
  };
  const services: Record<string, ServiceView> = {};
  for (const [name, body] of Object.entries(requests)) {
    const service: ServiceView = await api(
      request,
      'POST',
      '/api/gpu/services',
      {
        request: body,
        entityRef: `component:default/${name}`,
      },
    );
    created.push(service.id);
    services[name] = service;
  }
  expect(services[DEV].cluster).toBe('local');
  expect(services[PROD].cluster).toBe('prod-local');

  // Ready: applied, admitted by that cluster's Kueue, its pod running on a kwok node of the pool.
  for (const name of [DEV, PROD]) {
    await expect
      .poll(
        async () => {
          const view: ServiceView = await api(
            request,
            'GET',
            `/api/gpu/services/${services[name].id}`,
          );
          return `${view.status}${
            view.status === 'ready' ? '' : `: ${view.statusReason}`
          }`;
        },
        { timeout: 180_000, intervals: [1000, 2000] },
      )
      .toBe('ready');
  }

  for (const name of [DEV, PROD]) {
    await registerGpuComponent(request, name, services[name].id, {
      annotations: {
        'backstage.io/kubernetes-cluster':
          services[name].annotations['backstage.io/kubernetes-cluster'],
      },
    });
  }

  for (const [name, other] of [
    [DEV, PROD],
    [PROD, DEV],
  ]) {
    const own =
      CLUSTER_TITLES[services[name].cluster as keyof typeof CLUSTER_TITLES];
    const elsewhere =
      CLUSTER_TITLES[services[other].cluster as keyof typeof CLUSTER_TITLES];
    // The service's page names its cluster.
    await page.goto(`/catalog/default/component/${name}/gpu`);
    await expect(page.getByTestId('service-cluster')).toContainText(
      `Cluster: ${services[name].cluster} (`,
    );
    await openKubernetesTab(page, name);
    await expect(page.getByText(own, { exact: true }).first()).toBeVisible();
    await expect(page.getByText(elsewhere, { exact: true })).toHaveCount(0);
    // The service's one pod, and its Deployment once the cluster is opened.
    const cluster = page.getByRole('button', { name: own });
    await expect(cluster).toContainText('1 pod');
    await expect(cluster).toContainText('No pods with errors');
    await cluster.click();
    // The Deployment's summary (the first of its two buttons; the other opens its details).
    await expect(
      page.getByRole('button', { name: `${name} Deployment` }).first(),
    ).toContainText('1 pod');
    await expect(page.getByText(/Something went wrong|Error:/i)).toHaveCount(0);
    await screenshot(page, `gpu-fleet-kubernetes-${name}`);
  }
  expect(await consoleProblems.problems()).toEqual([]);
});

test('the tier step lists each option with its cluster: dev on local, production on prod-local', async ({
  page,
}) => {
  test.setTimeout(150_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  const consoleProblems = watchConsole(page);
  await signIn(page);
  await chooseTemplate(page, 'GPU model service');
  await page
    .getByLabel(/^Name/)
    .fill(`e2e-fleet-form-${Date.now().toString(36)}`);
  await autocomplete(page, /^Owning team/, 'ml-platform');
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByRole('button', { name: 'Next' }).click();

  // dev may use the dev cluster only: the options on local can be chosen, those on prod-local are listed with their
  // cluster and not allowed.
  const mig = tierRow(page, 'mig', 'a100-mig');
  const onDemand = tierRow(page, 'dedicated', 'l4-ondemand');
  await expect(mig).toContainText('cluster local');
  await expect(mig.getByRole('radio')).toBeEnabled();
  await expect(onDemand).toContainText('cluster prod-local');
  await expect(onDemand).toContainText('Not allowed');
  await expect(onDemand.getByRole('radio')).toBeDisabled();
  await screenshot(page, 'gpu-fleet-tier-step-dev');

  // production may use prod-* only: the other way round.
  await page.getByRole('button', { name: 'Back' }).click();
  await page.getByRole('button', { name: /^Environment/ }).click();
  await page.getByRole('option', { name: 'production' }).click();
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(onDemand).toContainText('cluster prod-local');
  await expect(onDemand.getByRole('radio')).toBeEnabled();
  await expect(mig).toContainText('cluster local');
  await expect(mig).toContainText('Not allowed');
  await expect(mig.getByRole('radio')).toBeDisabled();
  await screenshot(page, 'gpu-fleet-tier-step-production');
  expect(await consoleProblems.problems()).toEqual([]);
});
