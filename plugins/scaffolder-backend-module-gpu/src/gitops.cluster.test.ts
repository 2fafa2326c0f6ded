import {
  coreServices,
  createBackendModule,
  createServiceFactory,
  SchedulerService,
} from '@backstage/backend-plugin-api';
import {
  createMockDirectory,
  mockCredentials,
  mockServices,
  startTestBackend,
} from '@backstage/backend-test-utils';
import { ScmIntegrations } from '@backstage/integration';
import { demoPlatformConfig } from '@gpu-platform/backstage-plugin-gpu-common';
import { describeOnLocalCluster } from '@gpu-platform/backstage-plugin-gpu-node/testUtils';
import { AddressInfo } from 'node:net';
import path from 'node:path';
import yaml from 'yaml';
// The run boots the real catalog, scaffolder and gpu backend plugins next to this module.
/* eslint-disable @backstage/no-mixed-plugin-imports */
import catalogPlugin from '@backstage/plugin-catalog-backend';
import scaffolderEntityModel from '@backstage/plugin-catalog-backend-module-scaffolder-entity-model';
import scaffolderPlugin from '@backstage/plugin-scaffolder-backend';
import gpuPlugin from '@gpu-platform/backstage-plugin-gpu-backend';
import {
  createFluxSyncedRepository,
  createNamespaces,
  databaseClosedOnShutdown,
  eventually,
  fluxObjects,
  giteaApi,
  hasCondition,
  KueueWorkload,
  localClusterClients,
  localForge,
  mergePullRequest,
  podsOf,
  removeFluxSyncedRepository,
  workloadsOfPods,
} from '@gpu-platform/backstage-plugin-gpu-backend/testUtils';
/* eslint-enable @backstage/no-mixed-plugin-imports */
import { mockContext, outputsOf } from './__testUtils__/actionContext';
import { backendApi, runTemplateTask } from './__testUtils__/scaffolderTasks';
import { createGiteaPullRequestAction } from './actions/giteaPullRequest';
import { examples } from './actions/giteaPullRequest.examples';
import { GiteaPullRequests } from './gitops/GiteaPullRequests';
import scaffolderModuleGpu, { catalogModuleGpuServiceBinding } from './index';

jest.setTimeout(600_000);

const ROOT_CATALOG_INFO = path.resolve(__dirname, '../../../catalog-info.yaml');

/** The team of this suite: its own namespace, ClusterQueue and cohort, so other suites' objects do not matter. */
const TEAM = 'gitops-team';
const NAMESPACE = 'gitops-team';
const CLUSTER = 'gpu-gitops';
const SERVICE = 'gitops-chat';
const PLATFORM_DIR = `clusters/${CLUSTER}/gpu-platform`;

interface GiteaPull {
  number: number;
  title: string;
  body: string;
  state: string;
  merged: boolean;
  head: { ref: string };
}

describeOnLocalCluster(
  'GitOps on a real forge and controller: Gitea pull requests, synced by Flux into the local cluster',
  kubeconfig => {
    const gitops = localForge();
    const clients = localClusterClients(kubeconfig);
    const repo = `gpu-gitops-${Date.now().toString(36)}`;
    const host = new URL(gitops.url).host;
    const repoUrl = `${host}?owner=${gitops.user}&repo=${repo}`;
    const integration = {
      host,
      baseUrl: gitops.url,
      username: gitops.user,
      password: gitops.token,
    };
    const dir = createMockDirectory();
    let baseUrl: string;
    let stopBackend: () => Promise<void>;

    const gitea = giteaApi(gitops);

    const api = backendApi(() => baseUrl);
    // The gpu plugin's scheduler, to run its GitOps follower now (the test backend's scheduler runs no task by itself).
    let gpuScheduler: SchedulerService | undefined;
    const gpuSchedulerCapture = createBackendModule({
      pluginId: 'gpu',
      moduleId: 'test-scheduler-capture',
      register(env) {
        env.registerInit({
          deps: { scheduler: coreServices.scheduler },
          async init({ scheduler }) {
            gpuScheduler = scheduler;
          },
        });
      },
    });

    const runTask = (templateName: string, values: Record<string, unknown>) =>
      runTemplateTask(api, templateName, values, { timeoutMs: 120_000 });

    async function openPull(branch: string): Promise<GiteaPull> {
      const pulls = await gitea<GiteaPull[]>(
        'GET',
        `/repos/${gitops.user}/${repo}/pulls?state=open`,
      );
      const pull = pulls.body.find(p => p.head.ref === branch);
      if (!pull) {
        throw new Error(
          `No open pull request from ${branch}: ${JSON.stringify(pulls.body)}`,
        );
      }
      return pull;
    }

    const merge = (pull: GiteaPull) =>
      mergePullRequest(gitops, repo, pull.number);

    const { kustomizations } = fluxObjects(gitops);

    async function deploymentOrUndefined() {
      try {
        return await clients.apps.readNamespacedDeployment({
          name: SERVICE,
          namespace: NAMESPACE,
        });
      } catch (error) {
        if ((error as { code?: number }).code === 404) return undefined;
        throw error;
      }
    }

    beforeAll(async () => {
      await createFluxSyncedRepository({
        forge: gitops,
        clients,
        name: repo,
        readme: 'One directory per GPU model service, proposed by Backstage.\n',
      });
      await createNamespaces(clients, [NAMESPACE]);
      const kustomization = (
        name: string,
        sourcePath: string,
        prune: boolean,
      ) => ({
        apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
        kind: 'Kustomization',
        metadata: { name },
        spec: {
          interval: '2s',
          retryInterval: '2s',
          path: sourcePath,
          prune,
          sourceRef: { kind: 'GitRepository', name: repo },
        },
      });
      // The platform's Kueue objects stay when the suite ends (other suites share the flavors); the services are
      // pruned when their directory goes.
      await clients.custom.createNamespacedCustomObject({
        ...kustomizations,
        body: kustomization(
          `${repo}-platform`,
          `./${PLATFORM_DIR}/kueue`,
          false,
        ),
      });
      await clients.custom.createNamespacedCustomObject({
        ...kustomizations,
        body: kustomization(`${repo}-services`, './deploy', true),
      });

      dir.setContent({ 'local-catalog': {} });
      const backend = await startTestBackend({
        features: [
          databaseClosedOnShutdown,
          catalogPlugin,
          catalogModuleGpuServiceBinding,
          scaffolderEntityModel,
          scaffolderPlugin,
          gpuPlugin,
          gpuSchedulerCapture,
          scaffolderModuleGpu,
          mockServices.rootConfig.factory({
            data: {
              gpu: {
                ...demoPlatformConfig,
                kueue: { ...demoPlatformConfig.kueue, cohort: 'suite-gitops' },
                teams: [
                  {
                    name: TEAM,
                    namespaces: [NAMESPACE],
                    gpuQuota: { 'l4-ondemand': 2 },
                    monthlyBudget: '20000',
                  },
                ],
                clusters: [{ name: CLUSTER, mode: 'gitops' }],
              },
              integrations: { gitea: [integration] },
              catalog: {
                locations: [
                  {
                    type: 'file',
                    target: ROOT_CATALOG_INFO,
                    rules: [{ allow: ['Component', 'Location', 'Template'] }],
                  },
                  {
                    type: 'file',
                    target: dir.resolve('local-catalog/*.yaml'),
                    rules: [{ allow: ['Component'] }],
                  },
                ],
              },
              scaffolder: {
                gpu: { catalogDirectory: dir.resolve('local-catalog') },
              },
            },
          }),
          createServiceFactory({
            service: coreServices.userInfo,
            deps: {},
            factory: () =>
              mockServices.userInfo({
                userEntityRef: mockCredentials.user().principal.userEntityRef,
                ownershipEntityRefs: [`group:default/${TEAM}`],
              }),
          }),
        ],
      });
      stopBackend = () => backend.stop();
      baseUrl = `http://localhost:${
        (backend.server.address() as AddressInfo).port
      }`;
      await eventually(
        'the templates in the catalog',
        async () =>
          (
            await api(
              'GET',
              '/api/catalog/entities/by-name/template/default/gpu-model-service-gitops',
            )
          ).status === 200 || undefined,
        { timeoutMs: 60_000 },
      );
    });

    afterAll(async () => {
      // Deleting the services' Kustomization prunes what it applied; the platform's objects stay (see above).
      await removeFluxSyncedRepository({
        forge: gitops,
        clients,
        name: repo,
        kustomizations: [`${repo}-services`, `${repo}-platform`],
      });
      await stopBackend?.();
    });

    it('proposes the platform and a service in pull requests; once merged, Flux applies them and Kueue admits the service', async () => {
      const platform = await runTask('gpu-platform-gitops', {
        cluster: CLUSTER,
        repoUrl,
        targetPath: PLATFORM_DIR,
      });
      expect({ status: platform.task.status, log: platform.log }).toMatchObject(
        { status: 'completed' },
      );
      const platformPull = await openPull(`gpu-platform-${CLUSTER}`);
      expect(platform.output.links[0].url).toMatch(
        new RegExp(`/${repo}/pulls/${platformPull.number}$`),
      );
      await merge(platformPull);
      await eventually(
        `ClusterQueue gpu-${TEAM} applied by Flux`,
        async () =>
          (await clients.custom
            .getClusterCustomObject({
              group: 'kueue.x-k8s.io',
              version: 'v1beta2',
              plural: 'clusterqueues',
              name: `gpu-${TEAM}`,
            })
            .catch(() => undefined)) ?? undefined,
        { timeoutMs: 120_000 },
      );

      const service = await runTask('gpu-model-service-gitops', {
        name: SERVICE,
        description: 'A chat model delivered through GitOps',
        owner: `group:default/${TEAM}`,
        model: 'llama-3.2-3b',
        runtime: 'vllm',
        dtype: 'bf16',
        maxModelLen: 4096,
        concurrency: 8,
        replicas: 1,
        environment: 'dev',
        placement: { tier: 'dedicated', pool: 'l4-ondemand' },
        repoUrl,
      });
      expect({ status: service.task.status, log: service.log }).toMatchObject({
        status: 'completed',
      });
      const servicePull = await openPull(`gpu-service-${SERVICE}`);
      expect(servicePull.title).toBe(`GPU model service ${SERVICE}`);
      expect(servicePull.body).toMatch(/dedicated on\s+l4-ondemand/);
      expect(service.output.links[0].url).toMatch(
        new RegExp(`/${repo}/pulls/${servicePull.number}$`),
      );
      const files = await gitea<{ filename: string; status: string }[]>(
        'GET',
        `/repos/${gitops.user}/${repo}/pulls/${servicePull.number}/files`,
      );
      expect(files.body.map(f => f.filename)).toEqual(
        expect.arrayContaining([
          `deploy/${SERVICE}/kustomization.yaml`,
          expect.stringMatching(
            new RegExp(`^deploy/${SERVICE}/\\d+-deployment-${SERVICE}\\.yaml$`),
          ),
        ]),
      );
      // Nothing reaches the cluster before the merge.
      expect(await deploymentOrUndefined()).toBeUndefined();

      await merge(servicePull);
      const deployment = await eventually(
        `Deployment ${SERVICE} applied by Flux`,
        deploymentOrUndefined,
        { timeoutMs: 120_000 },
      );
      expect(deployment.spec?.replicas).toBe(1);
      const admitted = await eventually(
        `Kueue admission of ${SERVICE}'s pod`,
        async () => {
          const pods = await podsOf(clients, NAMESPACE, SERVICE);
          const workloads = await workloadsOfPods(clients, NAMESPACE, pods);
          return workloads.length > 0 &&
            workloads.every(w => hasCondition(w.status?.conditions, 'Admitted'))
            ? workloads
            : undefined;
        },
        { timeoutMs: 120_000 },
      );
      expect(
        admitted.map((w: KueueWorkload) => w.status?.admission?.clusterQueue),
      ).toEqual([`gpu-${TEAM}`]);
    });

    it('a change proposes only the files that differ; after the merge the cluster shows the new spec', async () => {
      const pulls = new GiteaPullRequests(integration, gitops.user, repo);
      const tree = await gitea<{ tree: { path: string; type: string }[] }>(
        'GET',
        `/repos/${gitops.user}/${repo}/git/trees/main?recursive=true`,
      );
      const files: Record<string, Buffer> = {};
      for (const entry of tree.body.tree.filter(
        e => e.type === 'blob' && e.path.startsWith(`deploy/${SERVICE}/`),
      )) {
        const raw = await fetch(
          `${gitops.url}/api/v1/repos/${gitops.user}/${repo}/raw/${entry.path}?ref=main`,
          { headers: { authorization: `token ${gitops.token}` } },
        );
        files[entry.path.slice(`deploy/${SERVICE}/`.length)] = Buffer.from(
          await raw.arrayBuffer(),
        );
      }
      const deploymentFile = Object.keys(files).find(f =>
        f.endsWith(`-deployment-${SERVICE}.yaml`),
      )!;
      const deployment = yaml.parse(files[deploymentFile].toString('utf8'));
      deployment.spec.template.metadata.annotations = {
        ...deployment.spec.template.metadata.annotations,
        'gpu.backstage.io/test-change': 'second-pull-request',
      };
      files[deploymentFile] = Buffer.from(yaml.stringify(deployment));

      const opened = await pulls.proposeDirectory({
        directory: `deploy/${SERVICE}`,
        files,
        branch: `gpu-service-${SERVICE}-change`,
        title: `Change GPU model service ${SERVICE}`,
        body: 'A change of the pod template',
        commitMessage: `Change GPU model service ${SERVICE}`,
      });
      expect(opened.changes).toEqual({
        created: [],
        updated: [`deploy/${SERVICE}/${deploymentFile}`],
        deleted: [],
      });
      await merge(await openPull(opened.branch));
      await eventually(
        'the changed pod template in the cluster',
        async () => {
          const live = await deploymentOrUndefined();
          return live?.spec?.template.metadata?.annotations?.[
            'gpu.backstage.io/test-change'
          ] === 'second-pull-request'
            ? true
            : undefined;
        },
        { timeoutMs: 120_000 },
      );
    });

    it('the change template scales the service through a pull request described with its cost and quota; after the merge the cluster runs 2 replicas', async () => {
      const quotaOf = async () =>
        (await api('GET', `/api/gpu/teams/${TEAM}/quota`)).body
          .reservedGpuEquivalents['l4-ondemand'];
      expect(await quotaOf()).toBe(1);
      const change = await runTask('change-gpu-model-service-gitops', {
        entity: `component:default/${SERVICE}`,
        replicas: 2,
        repoUrl,
      });
      expect({ status: change.task.status, log: change.log }).toMatchObject({
        status: 'completed',
      });
      const pull = await openPull(`gpu-service-${SERVICE}-change-2`);
      expect(pull.title).toBe(`Change GPU model service ${SERVICE}`);
      expect(pull.body).toContain('| Replicas | 1 | **2** |');
      expect(pull.body).toMatch(
        /\| Cost per month \| \$[\d,.]+ \| \*\*\$[\d,.]+\*\* \(\+\$[\d,.]+\) \|/,
      );
      expect(pull.body).toContain(
        '**Quota:** 1 on l4-ondemand → 2 on l4-ondemand (+1).',
      );
      expect(pull.body).toContain('**Approvals:** none needed');
      expect(change.output.links[0].url).toMatch(
        new RegExp(`/${repo}/pulls/${pull.number}$`),
      );
      // The backend holds the new reservation from the change on; the cluster runs the old spec until the merge.
      expect(await quotaOf()).toBe(2);
      expect((await deploymentOrUndefined())?.spec?.replicas).toBe(1);
      await merge(pull);
      await eventually(
        `Deployment ${SERVICE} with 2 replicas applied by Flux`,
        async () =>
          (await deploymentOrUndefined())?.spec?.replicas === 2
            ? true
            : undefined,
        { timeoutMs: 120_000 },
      );
    });

    it('a decommission proposes removing the directory; after the merge Flux prunes the objects', async () => {
      const action = createGiteaPullRequestAction({
        integrations: ScmIntegrations.fromConfig(
          mockServices.rootConfig({
            data: { integrations: { gitea: [integration] } },
          }),
        ),
      });
      const ctx = mockContext({
        repoUrl,
        branchName: `gpu-service-${SERVICE}-decommission`,
        title: `Decommission GPU model service ${SERVICE}`,
        targetPath: `deploy/${SERVICE}`,
        remove: true,
      });
      await action.handler(ctx);
      const outputs = outputsOf(ctx);
      expect(outputs.created).toEqual([]);
      expect(outputs.deleted).toEqual(
        expect.arrayContaining([`deploy/${SERVICE}/kustomization.yaml`]),
      );
      // Still running until the merge.
      expect(await deploymentOrUndefined()).toBeDefined();
      await merge(await openPull(`gpu-service-${SERVICE}-decommission`));
      await eventually(
        `Deployment ${SERVICE} pruned by Flux`,
        async () => ((await deploymentOrUndefined()) ? undefined : true),
        { timeoutMs: 120_000 },
      );
    });

    it('a service whose request was closed unmerged is retried through a new pull request; once merged, Flux applies it', async () => {
      const RETRIED = 'gitops-retried';
      const quotaOf = async () =>
        (await api('GET', `/api/gpu/teams/${TEAM}/quota`)).body
          .reservedGpuEquivalents['l4-ondemand'] ?? 0;
      // The decommissioned service's quota is given back in the backend (its directory is gone from the repository).
      const [decommissioned] = (
        await api('GET', `/api/gpu/services?team=${TEAM}`)
      ).body.items.filter((s: { name: string }) => s.name === SERVICE);
      expect(
        (await api('DELETE', `/api/gpu/services/${decommissioned.id}`)).status,
      ).toBe(200);
      expect(await quotaOf()).toBe(0);

      const created = await runTask('gpu-model-service-gitops', {
        name: RETRIED,
        owner: `group:default/${TEAM}`,
        model: 'llama-3.2-3b',
        runtime: 'vllm',
        dtype: 'bf16',
        maxModelLen: 4096,
        concurrency: 8,
        replicas: 1,
        environment: 'dev',
        placement: { tier: 'dedicated', pool: 'l4-ondemand' },
        repoUrl,
      });
      expect({ status: created.task.status, log: created.log }).toMatchObject({
        status: 'completed',
      });
      const first = await openPull(`gpu-service-${RETRIED}`);
      expect(await quotaOf()).toBe(1);
      const closed = await gitea(
        'PATCH',
        `/repos/${gitops.user}/${repo}/pulls/${first.number}`,
        { state: 'closed' },
      );
      expect(closed.status).toBe(201);
      const serviceId = await eventually(
        `${RETRIED} rolled back by the follower`,
        async () => {
          await gpuScheduler!.triggerTask('gpu-gitops-follow').catch(() => {});
          const { items } = (await api('GET', `/api/gpu/services?team=${TEAM}`))
            .body;
          const rolledBack = items.find(
            (s: { name: string; reason: string }) =>
              s.name === RETRIED && s.reason === 'PullRequestClosed',
          );
          return rolledBack?.id as string | undefined;
        },
        { timeoutMs: 60_000 },
      );
      expect(await quotaOf()).toBe(0);

      const retry = await runTask('retry-gpu-model-service-gitops', {
        entity: `component:default/${RETRIED}`,
        repoUrl,
      });
      expect({ status: retry.task.status, log: retry.log }).toMatchObject({
        status: 'completed',
      });
      const second = await openPull(`gpu-service-${RETRIED}-retry-2`);
      expect(second.title).toBe(`Retry GPU model service ${RETRIED}`);
      expect(second.body).toContain(
        '**Why the last request ended:** its pull request',
      );
      expect(second.body).toContain(
        `/pulls/${first.number} was closed without merging`,
      );
      expect(second.body).toMatch(/\| Cost per month \| \$[\d,.]+ \|/);
      expect(second.body).toContain(
        '**Quota:** the team had 0 of its 2 GPU-equivalents on l4-ondemand reserved; this retry holds 1 (1 left).',
      );
      expect(retry.output.links[0].url).toMatch(
        new RegExp(`/${repo}/pulls/${second.number}$`),
      );
      const { body: retried } = await api(
        'GET',
        `/api/gpu/services/${serviceId}`,
      );
      expect(retried).toMatchObject({
        status: 'approved',
        generation: 2,
        pullRequest: { number: second.number, state: 'open' },
      });
      expect(await quotaOf()).toBe(1);

      await merge(second);
      await eventually(
        `Deployment ${RETRIED} applied by Flux`,
        async () =>
          clients.apps
            .readNamespacedDeployment({ name: RETRIED, namespace: NAMESPACE })
            .catch(() => undefined),
        { timeoutMs: 120_000 },
      );
      await eventually(
        `the retried request recorded merged`,
        async () => {
          await gpuScheduler!.triggerTask('gpu-gitops-follow').catch(() => {});
          const { body } = await api('GET', `/api/gpu/services/${serviceId}`);
          return body.pullRequest?.state === 'merged' ? true : undefined;
        },
        { timeoutMs: 60_000 },
      );
      expect(await quotaOf()).toBe(1);
    });

    it("runs gpu:gitea:pull-request's examples against the forge", async () => {
      const action = createGiteaPullRequestAction({
        integrations: ScmIntegrations.fromConfig(
          mockServices.rootConfig({
            data: { integrations: { gitea: [integration] } },
          }),
        ),
      });
      const workspace = createMockDirectory();
      workspace.setContent({
        'deploy/summariser/kustomization.yaml':
          'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: []\n',
      });
      for (const example of examples) {
        const input = yaml.parse(example.example).steps[0].input;
        const ctx = mockContext(
          { ...input, repoUrl },
          { workspacePath: workspace.path },
        );
        await action.handler(ctx);
        const pull = await openPull(input.branchName);
        expect(outputsOf(ctx)).toMatchObject({
          pullRequestNumber: pull.number,
          branchName: input.branchName,
          ...(input.remove
            ? { deleted: ['deploy/summariser/kustomization.yaml'] }
            : { created: ['deploy/summariser/kustomization.yaml'] }),
        });
        await merge(pull);
      }
    });
  },
);
