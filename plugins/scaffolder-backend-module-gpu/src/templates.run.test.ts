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
import { demoPlatformConfig } from '@gpu-platform/backstage-plugin-gpu-common';
import fs from 'node:fs';
import { AddressInfo } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { setupServer } from 'msw/node';
import yaml from 'yaml';
// The run boots the real catalog, scaffolder and gpu backend plugins next to this module.
/* eslint-disable @backstage/no-mixed-plugin-imports */
import catalogPlugin from '@backstage/plugin-catalog-backend';
import scaffolderEntityModel from '@backstage/plugin-catalog-backend-module-scaffolder-entity-model';
import scaffolderPlugin from '@backstage/plugin-scaffolder-backend';
import scaffolderGithubModule from '@backstage/plugin-scaffolder-backend-module-github';
import scaffolderGitlabModule from '@backstage/plugin-scaffolder-backend-module-gitlab';
import gpuPlugin from '@gpu-platform/backstage-plugin-gpu-backend';
import { databaseClosedOnShutdown } from '@gpu-platform/backstage-plugin-gpu-backend/testUtils';
/* eslint-enable @backstage/no-mixed-plugin-imports */
import { fakeGitHub } from './__testUtils__/fakeGitHub';
import { backendApi, runTemplateTask } from './__testUtils__/scaffolderTasks';
import { LocalCatalogDirectory } from './catalog/LocalCatalogDirectory';
import scaffolderModuleGpu, { catalogModuleGpuServiceBinding } from './index';

const ROOT_CATALOG_INFO = path.resolve(__dirname, '../../../catalog-info.yaml');

/** ml-platform's report summariser, in the team's own repository. */
const ownSummariser = {
  apiVersion: 'backstage.io/v1alpha1',
  kind: 'Component',
  metadata: {
    name: 'summariser',
    description: 'The report summariser, from the team repository',
  },
  spec: { type: 'service', lifecycle: 'production', owner: 'ml-platform' },
};

type ObjectWithRef = { kind: string; metadata: { name: string } };
const sortByRef = (objects: ObjectWithRef[]) =>
  [...objects].sort((a, b) =>
    `${a.kind}/${a.metadata.name}`.localeCompare(
      `${b.kind}/${b.metadata.name}`,
    ),
  );

jest.setTimeout(120_000);

/**
 * Runs the real templates through the real scaffolder: the catalog reads them from the repository's
 * catalog-info.yaml, a task creates a GPU service and registers its component through the local catalog directory,
 * and the decommission template deletes both again, releasing the quota. GitHub is faked by msw (fakeGitHub): the
 * GitOps templates open their pull requests against it with the token of integrations.github.
 */
describe('the GPU templates in a backend with the catalog, the scaffolder and the gpu plugin', () => {
  const dir = createMockDirectory();
  let baseUrl: string;
  const github = fakeGitHub();
  // Calls to the test backend itself (localhost) pass through.
  const mswServer = setupServer(...github.handlers);
  beforeAll(() => mswServer.listen({ onUnhandledRequest: 'bypass' }));
  afterAll(() => mswServer.close());

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

  async function until<T>(
    what: string,
    probe: () => Promise<T | undefined>,
  ): Promise<T> {
    for (let i = 0; i < 200; i++) {
      const value = await probe();
      if (value !== undefined) return value;
      await sleep(250);
    }
    throw new Error(`Timed out waiting for ${what}`);
  }

  const runTask = (templateName: string, values: Record<string, unknown>) =>
    runTemplateTask(api, templateName, values);

  let stopBackend = async () => {};
  // The scaffolder reads a task's events in a loop that notices it is done only after its next 1-second sleep
  // (StorageTaskBroker.event$); stopping the backend (and so destroying its databases) before those loops end would
  // make their last read reject with nothing to catch it.
  afterAll(async () => {
    await sleep(1_500);
    await stopBackend();
  });

  beforeAll(async () => {
    dir.setContent({
      'local-catalog': {},
      // The team's own component, defined outside the GPU templates' directory (as examples/entities.yaml does).
      'team-repo': { 'catalog-info.yaml': yaml.stringify(ownSummariser) },
    });
    const backend = await startTestBackend({
      features: [
        databaseClosedOnShutdown,
        catalogPlugin,
        catalogModuleGpuServiceBinding,
        scaffolderEntityModel,
        scaffolderPlugin,
        scaffolderGithubModule,
        scaffolderGitlabModule,
        gpuPlugin,
        gpuSchedulerCapture,
        scaffolderModuleGpu,
        mockServices.rootConfig.factory({
          data: {
            // A named dry-run cluster: services stay dry-run, and gpu-platform-gitops has a cluster to render.
            gpu: {
              ...demoPlatformConfig,
              clusters: [{ name: 'gpu-staging', mode: 'dry-run' }],
              // Scale to zero wakes through KEDA's HTTP add-on.
              serviceDefaults: { scaleToZero: { httpAddOn: {} } },
            },
            integrations: {
              github: [{ host: 'github.com', token: 'ghp-test-token' }],
            },
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
                {
                  type: 'file',
                  target: dir.resolve('team-repo/catalog-info.yaml'),
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
              ownershipEntityRefs: ['group:default/ml-platform'],
            }),
        }),
      ],
    });
    stopBackend = () => backend.stop();
    baseUrl = `http://localhost:${
      (backend.server.address() as AddressInfo).port
    }`;
    await until('the templates in the catalog', async () => {
      const { status } = await api(
        'GET',
        '/api/catalog/entities/by-name/template/default/decommission-gpu-model-service',
      );
      return status === 200 ? true : undefined;
    });
  });

  it('creates a service, registers its component, then decommissions both', async () => {
    const { task, log, output } = await runTask('gpu-model-service', {
      name: 'ticket-summariser',
      description: 'Summarises support tickets',
      owner: 'group:default/ml-platform',
      model: 'llama-3.1-8b',
      runtime: 'vllm',
      dtype: 'bf16',
      maxModelLen: 8192,
      concurrency: 64,
      replicas: 1,
      environment: 'production',
      placement: {
        tier: 'dedicated',
        pool: 'l4-ondemand',
        needsApproval: false,
      },
    });
    expect({ status: task.status, log }).toEqual({
      status: 'completed',
      log: expect.any(String),
    });
    // The result says where the service stands in words, not as raw status and mode keys.
    expect(output.text[0].content).toContain(
      '**ticket-summariser** is **approved (rendered only: no cluster is configured)**:',
    );

    const entity = await api(
      'GET',
      '/api/catalog/entities/by-name/component/default/ticket-summariser',
    );
    expect(entity.status).toBe(200);
    const serviceId =
      entity.body.metadata.annotations['gpu.backstage.io/service-id'];
    expect(entity.body).toMatchObject({
      metadata: {
        description: 'Summarises support tickets',
        annotations: {
          'backstage.io/kubernetes-id': 'ticket-summariser',
          'backstage.io/kubernetes-namespace': 'ml-platform',
        },
      },
      spec: { owner: 'group:default/ml-platform', lifecycle: 'production' },
    });
    const service = await api('GET', `/api/gpu/services/${serviceId}`);
    expect(service.body).toMatchObject({
      status: 'approved',
      entityRef: 'component:default/ticket-summariser',
    });
    expect(
      (await api('GET', '/api/gpu/teams/ml-platform/quota')).body
        .reservedGpuEquivalents,
    ).toEqual({
      'l4-ondemand': 1,
    });

    const decommission = await runTask('decommission-gpu-model-service', {
      entity: 'component:default/ticket-summariser',
    });
    expect({
      status: decommission.task.status,
      log: decommission.log,
    }).toMatchObject({ status: 'completed' });
    expect(
      (await api('GET', `/api/gpu/services/${serviceId}`)).body.status,
    ).toBe('deleted');
    expect(
      (await api('GET', '/api/gpu/teams/ml-platform/quota')).body
        .reservedGpuEquivalents,
    ).toEqual({});
    expect(fs.readdirSync(dir.resolve('local-catalog'))).toEqual([]);
    expect(
      (
        await api(
          'GET',
          '/api/catalog/entities/by-name/component/default/ticket-summariser',
        )
      ).status,
    ).toBe(404);
  });

  it('scales to zero with the scale-to-zero branch’s values, not those the queue branch left in the form', async () => {
    const { task, log } = await runTask('gpu-model-service', {
      name: 'idle-summariser',
      owner: 'group:default/ml-platform',
      model: 'llama-3.1-8b',
      runtime: 'vllm',
      dtype: 'bf16',
      maxModelLen: 8192,
      concurrency: 16,
      replicas: 1,
      environment: 'dev',
      scaling: 'zero',
      // What the form still holds after the user switched from "Autoscale on the queue".
      autoscaling: {
        minReplicas: 1,
        maxReplicas: 3,
        targetQueueDepth: 4,
        engine: 'keda',
      },
      scaleToZero: {
        minReplicas: 0,
        maxReplicas: 2,
        targetQueueDepth: 6,
        engine: 'keda',
      },
      placement: {
        tier: 'dedicated',
        pool: 'l4-ondemand',
        needsApproval: false,
      },
    });
    expect({ status: task.status, log }).toEqual({
      status: 'completed',
      log: expect.any(String),
    });
    const entity = await api(
      'GET',
      '/api/catalog/entities/by-name/component/default/idle-summariser',
    );
    const serviceId =
      entity.body.metadata.annotations['gpu.backstage.io/service-id'];
    const service = await api('GET', `/api/gpu/services/${serviceId}`);
    expect(service.body.request.autoscaling).toEqual({
      minReplicas: 0,
      maxReplicas: 2,
      targetQueueDepth: 6,
      engine: 'keda',
    });

    // The other tests expect an empty catalog directory.
    const decommission = await runTask('decommission-gpu-model-service', {
      entity: 'component:default/idle-summariser',
    });
    expect(decommission.task.status).toBe('completed');
    expect(fs.readdirSync(dir.resolve('local-catalog'))).toEqual([]);
  });

  it("states a vLLM service's latency budget in its request, and sends none for Ollama when the form still holds one", async () => {
    const sizing = {
      owner: 'group:default/ml-platform',
      model: 'llama-3.1-8b',
      maxModelLen: 8192,
      concurrency: 16,
      replicas: 1,
      environment: 'dev',
      placement: {
        tier: 'dedicated',
        pool: 'l4-ondemand',
        needsApproval: false,
      },
    };
    const budgeted = await runTask('gpu-model-service', {
      ...sizing,
      name: 'report-summariser',
      runtime: 'vllm',
      dtype: 'bf16',
      latencyBudgetSeconds: 2,
    });
    expect({ status: budgeted.task.status, log: budgeted.log }).toEqual({
      status: 'completed',
      log: expect.any(String),
    });
    const [summariser] = await servicesNamed('report-summariser');
    expect(summariser.request.latencyBudget).toEqual({ p95Seconds: 2 });

    // The user entered a budget, then switched to Ollama, which has none: the field is hidden but its value stays.
    const ollama = await runTask('gpu-model-service', {
      ...sizing,
      name: 'ollama-summariser',
      model: 'llama-3.2-3b',
      runtime: 'ollama',
      dtype: 'int4',
      maxModelLen: 4096,
      concurrency: 2,
      latencyBudgetSeconds: 2,
    });
    expect({ status: ollama.task.status, log: ollama.log }).toEqual({
      status: 'completed',
      log: expect.any(String),
    });
    const [ollamaService] = await servicesNamed('ollama-summariser');
    expect(ollamaService.request.runtime).toBe('ollama');
    expect('latencyBudget' in ollamaService.request).toBe(false);

    // Below the smallest budget the backend takes, the scaffolder refuses the form's values before any step runs
    // (the vLLM branch of the runtime's dependency, which declares the field, does not hold).
    await expect(
      runTask('gpu-model-service', {
        ...sizing,
        name: 'hasty-summariser',
        runtime: 'vllm',
        dtype: 'bf16',
        latencyBudgetSeconds: 0.05,
      }),
    ).rejects.toThrow(
      /The scaffolder refused gpu-model-service with 400: .*does not meet dependency required by instance\.runtime/,
    );
    expect(await servicesNamed('hasty-summariser')).toEqual([]);

    // The other tests expect an empty catalog directory.
    for (const name of ['report-summariser', 'ollama-summariser']) {
      const decommission = await runTask('decommission-gpu-model-service', {
        entity: `component:default/${name}`,
      });
      expect(decommission.task.status).toBe('completed');
    }
    expect(fs.readdirSync(dir.resolve('local-catalog'))).toEqual([]);
  });

  it('dry-runs the GitOps template with the rendered manifests in the result and nothing created', async () => {
    const template = await api(
      'GET',
      '/api/catalog/entities/by-name/template/default/gpu-model-service-gitops',
    );
    const result = await api('POST', '/api/scaffolder/v2/dry-run', {
      template: template.body,
      values: {
        name: 'chatbot',
        owner: 'group:default/ml-platform',
        model: 'llama-3.2-3b',
        runtime: 'ollama',
        dtype: 'int4',
        maxModelLen: 4096,
        concurrency: 2,
        replicas: 1,
        environment: 'dev',
        placement: { tier: 'mps', pool: 'l4-mps' },
        repoUrl: 'github.com?owner=ml-platform&repo=gitops',
      },
      // No skeleton: catalog-info.yaml is written by gpu:catalog:write.
      directoryContents: [],
    });
    expect({ status: result.status, error: result.body.error }).toEqual({
      status: 200,
    });
    const files = result.body.directoryContents.map(
      (f: { path: string }) => f.path,
    );
    expect(files).toEqual(
      expect.arrayContaining([
        'catalog-info.yaml',
        'deploy/chatbot/kustomization.yaml',
      ]),
    );
    expect(
      files.some((f: string) =>
        /^deploy\/chatbot\/\d-deployment-chatbot\.yaml$/.test(f),
      ),
    ).toBe(true);
    const services = (await api('GET', '/api/gpu/services')).body.items;
    expect(
      services.filter((s: { name: string }) => s.name === 'chatbot'),
    ).toEqual([]);
    expect(fs.readdirSync(dir.resolve('local-catalog'))).toEqual([]);
  });

  it('runs the GitOps template through to a pull request carrying the rendered manifests, then registers the component', async () => {
    const { task, log, output } = await runTask('gpu-model-service-gitops', {
      name: 'gitops-summariser',
      owner: 'group:default/ml-platform',
      model: 'llama-3.1-8b',
      runtime: 'vllm',
      dtype: 'bf16',
      maxModelLen: 8192,
      concurrency: 16,
      replicas: 1,
      environment: 'dev',
      latencyBudgetSeconds: 2.5,
      placement: { tier: 'dedicated', pool: 'l4-ondemand' },
      repoUrl: 'github.com?owner=ml-platform&repo=gitops',
    });
    expect({ status: task.status, log }).toEqual({
      status: 'completed',
      log: expect.any(String),
    });
    expect(log).toMatch(
      /Skipping step publish-gitlab because its if condition was false/,
    );

    const [service] = await servicesNamed('gitops-summariser');
    expect(service).toMatchObject({ mode: 'gitops', status: 'approved' });
    expect(service.request.latencyBudget).toEqual({ p95Seconds: 2.5 });
    const { body: detail } = await api(
      'GET',
      `/api/gpu/services/${service.id}`,
    );

    expect(github.pullRequests).toHaveLength(1);
    const [pullRequest] = github.pullRequests;
    expect(pullRequest).toMatchObject({
      owner: 'ml-platform',
      repo: 'gitops',
      title: 'GPU model service gitops-summariser',
      head: 'ml-platform:gpu-service-gitops-summariser',
      base: 'main',
    });
    expect(pullRequest.body).toMatch(/dedicated on l4-ondemand/);
    // Only the manifests, under deploy/<name>/: catalog-info.yaml stays with the local catalog directory.
    const paths = Object.keys(pullRequest.files).sort();
    expect(paths).toContain('deploy/gitops-summariser/kustomization.yaml');
    expect(paths.every(p => p.startsWith('deploy/gitops-summariser/'))).toBe(
      true,
    );
    const kustomization = yaml.parse(
      pullRequest.files['deploy/gitops-summariser/kustomization.yaml'],
    );
    expect(
      kustomization.resources.map(
        (file: string) => `deploy/gitops-summariser/${file}`,
      ),
    ).toEqual(paths.filter(p => !p.endsWith('/kustomization.yaml')).sort());
    const published = kustomization.resources.map((file: string) =>
      yaml.parse(pullRequest.files[`deploy/gitops-summariser/${file}`]),
    );
    expect(sortByRef(published)).toEqual(sortByRef(detail.manifests));

    expect(output?.links?.[0]).toMatchObject({
      url: 'https://github.com/ml-platform/gitops/pull/1',
    });
    const entity = await api(
      'GET',
      '/api/catalog/entities/by-name/component/default/gitops-summariser',
    );
    expect(entity.status).toBe(200);
    expect(
      entity.body.metadata.annotations['gpu.backstage.io/service-id'],
    ).toBe(service.id);

    const decommission = await runTask('decommission-gpu-model-service', {
      entity: 'component:default/gitops-summariser',
    });
    expect(decommission.task.status).toBe('completed');
  });

  it('runs the GitOps template with scale to zero: its HTTPScaledObject in the pull request and the endpoint that wakes it in the result', async () => {
    const { task, log, output } = await runTask('gpu-model-service-gitops', {
      name: 'gitops-idle',
      owner: 'group:default/ml-platform',
      model: 'llama-3.1-8b',
      runtime: 'vllm',
      dtype: 'bf16',
      maxModelLen: 8192,
      concurrency: 16,
      replicas: 1,
      environment: 'dev',
      scaling: 'zero',
      scaleToZero: {
        minReplicas: 0,
        maxReplicas: 2,
        targetQueueDepth: 6,
        engine: 'keda',
      },
      placement: { tier: 'dedicated', pool: 'l4-ondemand' },
      repoUrl: 'github.com?owner=ml-platform&repo=gitops',
    });
    expect({ status: task.status, log }).toEqual({
      status: 'completed',
      log: expect.any(String),
    });
    const [service] = await servicesNamed('gitops-idle');
    expect(service.request.autoscaling).toEqual({
      minReplicas: 0,
      maxReplicas: 2,
      targetQueueDepth: 6,
      engine: 'keda',
    });
    // The pull request carries the HTTP add-on's HTTPScaledObject (the platform wakes through it), up to 2 replicas.
    const pullRequest = github.pullRequests.at(-1)!;
    expect(pullRequest.head).toBe('ml-platform:gpu-service-gitops-idle');
    const published = Object.entries(pullRequest.files)
      .filter(([file]) => !file.endsWith('/kustomization.yaml'))
      .map(([, text]) => yaml.parse(text as string));
    const wake = published.find(o => o.kind === 'HTTPScaledObject');
    expect(wake?.spec.replicas).toEqual({ min: 0, max: 2 });
    expect(output?.text?.[0].content).toContain(
      `with \`Host: gitops-idle.${service.namespace}.svc.cluster.local\` (a request there wakes the service when it is scaled to zero)`,
    );

    const decommission = await runTask('decommission-gpu-model-service', {
      entity: 'component:default/gitops-idle',
    });
    expect(decommission.task.status).toBe('completed');
  });

  it("runs the platform template: the platform's objects of the cluster in a pull request, as the gpu backend renders them", async () => {
    const before = github.pullRequests.length;
    const { task, log } = await runTask('gpu-platform-gitops', {
      cluster: 'gpu-staging',
      repoUrl: 'github.com?owner=platform-team&repo=gpu-platform',
      targetPath: 'clusters/gpu-staging/gpu-platform',
    });
    expect({ status: task.status, log }).toEqual({
      status: 'completed',
      log: expect.any(String),
    });
    const { body: rendered } = await api(
      'GET',
      '/api/gpu/platform/manifests?cluster=gpu-staging',
    );
    const pullRequest = github.pullRequests[before];
    expect(pullRequest).toMatchObject({
      owner: 'platform-team',
      repo: 'gpu-platform',
      title: 'GPU platform objects of cluster gpu-staging',
      head: 'platform-team:gpu-platform-gpu-staging',
    });
    expect(pullRequest.files).toEqual(
      Object.fromEntries(
        rendered.files.map((f: { path: string; content: string }) => [
          `clusters/gpu-staging/gpu-platform/${f.path}`,
          f.content,
        ]),
      ),
    );
    expect(Object.keys(pullRequest.files)).toEqual(
      expect.arrayContaining([
        'clusters/gpu-staging/gpu-platform/kueue/clusterqueue-gpu-ml-platform.yaml',
        'clusters/gpu-staging/gpu-platform/kustomization.yaml',
      ]),
    );
  });

  it('dry-runs the platform template for a GitLab repository: the rendered files, the GitLab step chosen, GitHub untouched', async () => {
    const template = await api(
      'GET',
      '/api/catalog/entities/by-name/template/default/gpu-platform-gitops',
    );
    const githubCalls = github.requests.length;
    const result = await api('POST', '/api/scaffolder/v2/dry-run', {
      template: template.body,
      values: {
        cluster: 'gpu-staging',
        repoUrl: 'gitlab.com?owner=platform-team&repo=gpu-platform',
        targetPath: 'gpu-platform',
      },
      directoryContents: [],
    });
    expect({ status: result.status, error: result.body.error }).toEqual({
      status: 200,
    });
    const log = result.body.log
      .map((e: { body: { message?: string } }) => e.body.message)
      .join('\n');
    expect(log).toMatch(
      /Skipping step publish-github because its if condition was false/,
    );
    expect(log).toMatch(
      /Skipping because publish:gitlab:merge-request does not support dry-run/,
    );
    const files = result.body.directoryContents.map(
      (f: { path: string }) => f.path,
    );
    expect(files).toEqual(
      expect.arrayContaining([
        'platform/kustomization.yaml',
        'platform/kueue/clusterqueue-gpu-search.yaml',
      ]),
    );
    expect(github.requests.length).toBe(githubCalls);
  });

  it("dry-runs the batch job template: the OCR Job on the team's spot queue, six pods at once, nothing applied", async () => {
    const template = await api(
      'GET',
      '/api/catalog/entities/by-name/template/default/gpu-batch-job',
    );
    const result = await api('POST', '/api/scaffolder/v2/dry-run', {
      template: template.body,
      values: {
        name: 'ocr-backlog',
        owner: 'group:default/search',
        image: 'registry.example.com/ocr-worker:1.4.2',
        args: ['--pages-per-document', '500'],
        pool: 'spot-l4',
        environment: 'dev',
        completions: 600,
        parallelism: 12,
        gpusPerPod: 1,
        backoffLimit: 6,
      },
      directoryContents: [],
    });
    expect({ status: result.status, error: result.body.error }).toEqual({
      status: 200,
    });
    const text = result.body.output.text[0].content;
    expect(text).toContain(
      '**ocr-backlog** was submitted to namespace `search`',
    );
    expect(text).toContain('**6** pod(s) at once');
    expect(text).toContain('(rendered only: no cluster is configured)');
    expect(text).not.toContain('(dry-run)');
  });

  const serviceValues = {
    owner: 'group:default/ml-platform',
    model: 'llama-3.1-8b',
    runtime: 'vllm',
    dtype: 'bf16',
    maxModelLen: 8192,
    concurrency: 64,
    replicas: 1,
    environment: 'production',
    placement: { tier: 'dedicated', pool: 'l4-ondemand' },
  };

  async function servicesNamed(name: string) {
    const { body } = await api('GET', '/api/gpu/services');
    return body.items.filter((s: { name: string }) => s.name === name);
  }

  it("binds a service to the team's own component defined elsewhere, which gets its card's annotation and is not rewritten", async () => {
    const before = await until(
      'the team component in the catalog',
      async () => {
        const { status, body } = await api(
          'GET',
          '/api/catalog/entities/by-name/component/default/summariser',
        );
        return status === 200 ? body : undefined;
      },
    );
    const { task, log } = await runTask('gpu-model-service', {
      ...serviceValues,
      name: 'summariser',
    });
    expect({ status: task.status, log }).toMatchObject({
      status: 'completed',
    });
    // No server path in what the user reads.
    expect(log).not.toContain(dir.path);
    const [service] = await servicesNamed('summariser');
    expect(service).toMatchObject({
      entityRef: 'component:default/summariser',
      status: 'approved',
    });
    const after = await until('the annotation on the component', async () => {
      const { body } = await api(
        'GET',
        '/api/catalog/entities/by-name/component/default/summariser',
      );
      return body?.metadata.annotations['gpu.backstage.io/service-id']
        ? body
        : undefined;
    });
    expect(after.metadata.annotations['gpu.backstage.io/service-id']).toBe(
      service.id,
    );
    expect(after.metadata.uid).toBe(before.metadata.uid);
    expect(after.metadata.description).toBe(ownSummariser.metadata.description);
    expect(
      fs.readFileSync(dir.resolve('team-repo/catalog-info.yaml'), 'utf8'),
    ).toBe(yaml.stringify(ownSummariser));
    expect(fs.readdirSync(dir.resolve('local-catalog'))).not.toContain(
      'component-default-summariser.yaml',
    );
  });

  it('writes free text that looks like YAML inertly, and refuses an owner that would inject keys, creating nothing', async () => {
    const description =
      'Ranks tickets\nspec:\n  owner: group:default/search\n---\nkind: Location';
    const { task, log } = await runTask('gpu-model-service', {
      ...serviceValues,
      name: 'inert-text',
      description,
    });
    expect({ status: task.status, log }).toMatchObject({
      status: 'completed',
    });
    const file = dir.resolve('local-catalog/component-default-inert-text.yaml');
    const documents = yaml.parseAllDocuments(fs.readFileSync(file, 'utf8'));
    expect(documents).toHaveLength(1);
    const written = documents[0].toJS();
    expect(written.metadata.description).toBe(description);
    expect(written.spec).toEqual({
      type: 'service',
      lifecycle: 'production',
      owner: 'group:default/ml-platform',
      system: 'model-serving',
    });
    expect(
      (
        await runTask('decommission-gpu-model-service', {
          entity: 'component:default/inert-text',
        })
      ).task.status,
    ).toBe('completed');

    const injected = await runTask('gpu-model-service', {
      ...serviceValues,
      name: 'injected-owner',
      owner: 'group:default/ml-platform\nsystem: evil',
    });
    expect(injected.task.status).toBe('failed');
    // Refused at the first step: the owner names no team (gpu:catalog:write would refuse it as well).
    expect(injected.log).toMatch(/InputError: Unknown team/);
    expect(await servicesNamed('injected-owner')).toEqual([]);
    expect(fs.readdirSync(dir.resolve('local-catalog'))).toEqual([]);
  });

  it("refuses another team's component name: the entity and its file stay as they were and no service is created", async () => {
    const local = new LocalCatalogDirectory(
      dir.resolve('local-catalog'),
      dir.resolve('local-catalog/*.yaml'),
    );
    const theirs = {
      apiVersion: 'backstage.io/v1alpha1',
      kind: 'Component',
      metadata: { name: 'search-ranker', description: "Search's ranker" },
      spec: {
        type: 'service',
        lifecycle: 'production',
        owner: 'group:default/search',
      },
    };
    const file = local.fileFor({
      kind: 'Component',
      namespace: 'default',
      name: 'search-ranker',
    });
    const text = yaml.stringify(theirs);
    fs.writeFileSync(file, text);
    expect(
      (
        await api('POST', '/api/catalog/refresh', {
          entityRef: local.locationEntityRef,
        })
      ).status,
    ).toBe(200);
    const before = await until('their component in the catalog', async () => {
      const { status, body } = await api(
        'GET',
        '/api/catalog/entities/by-name/component/default/search-ranker',
      );
      return status === 200 ? body : undefined;
    });

    const { task, log } = await runTask('gpu-model-service', {
      ...serviceValues,
      name: 'search-ranker',
    });
    expect(task.status).toBe('failed');
    expect(log).toMatch(
      /component:default\/search-ranker is owned by group:default\/search; a GPU service of group:default\/ml-platform cannot be bound to it/,
    );
    expect(fs.readFileSync(file, 'utf8')).toBe(text);
    expect(await servicesNamed('search-ranker')).toEqual([]);
    const after = await api(
      'GET',
      '/api/catalog/entities/by-name/component/default/search-ranker',
    );
    expect(after.body.metadata.uid).toBe(before.metadata.uid);
    expect(after.body.spec).toEqual(before.spec);
    expect(after.body.metadata.description).toBe("Search's ranker");
  });

  it('changes a GitOps service through a second pull request described with its cost and quota, then decommissions it through a third that removes its directory', async () => {
    const created = await runTask('gpu-model-service-gitops', {
      name: 'gitops-changer',
      owner: 'group:default/ml-platform',
      model: 'llama-3.1-8b',
      runtime: 'vllm',
      dtype: 'bf16',
      maxModelLen: 8192,
      concurrency: 16,
      replicas: 1,
      environment: 'dev',
      placement: { tier: 'dedicated', pool: 'l4-ondemand' },
      repoUrl: 'github.com?owner=ml-platform&repo=gitops',
    });
    expect({ status: created.task.status, log: created.log }).toMatchObject({
      status: 'completed',
    });
    const [service] = await servicesNamed('gitops-changer');
    const added = github.pullRequests.at(-1)!;
    expect(added.head).toBe('ml-platform:gpu-service-gitops-changer');
    const quotaBefore = (await api('GET', '/api/gpu/teams/ml-platform/quota'))
      .body.reservedGpuEquivalents['l4-ondemand'];

    const change = await runTask('change-gpu-model-service-gitops', {
      entity: 'component:default/gitops-changer',
      replicas: 2,
      repoUrl: 'github.com?owner=ml-platform&repo=gitops',
    });
    expect({ status: change.task.status, log: change.log }).toMatchObject({
      status: 'completed',
    });
    const changed = github.pullRequests.at(-1)!;
    expect(changed).toMatchObject({
      title: 'Change GPU model service gitops-changer',
      head: 'ml-platform:gpu-service-gitops-changer-change-2',
    });
    const { body: detail } = await api(
      'GET',
      `/api/gpu/services/${service.id}`,
    );
    expect(detail).toMatchObject({
      request: { replicas: 2 },
      gpuEquivalents: 2,
      mode: 'gitops',
    });
    expect(changed.body).toContain(
      `| Cost per month | ${service.monthlyCost} | **${detail.monthlyCost}** (+`,
    );
    expect(changed.body).toContain(
      '**Quota:** 1 on l4-ondemand → 2 on l4-ondemand (+1).',
    );
    expect(changed.body).toContain('**Approvals:** none needed');
    const deploymentPath = Object.keys(changed.files).find(p =>
      p.endsWith('-deployment-gitops-changer.yaml'),
    )!;
    expect(deploymentPath).toMatch(/^deploy\/gitops-changer\//);
    expect(yaml.parse(changed.files[deploymentPath]).spec.replicas).toBe(2);
    // Two replicas share a ReadWriteMany model cache: a claim of its own, as a claim's access modes cannot change.
    expect(Object.keys(changed.files).sort()).toEqual(
      Object.keys(added.files)
        .map(p =>
          p.replace(
            '-persistentvolumeclaim-gitops-changer-model-cache.yaml',
            '-persistentvolumeclaim-gitops-changer-model-cache-shared.yaml',
          ),
        )
        .sort(),
    );
    const kustomization = yaml.parse(
      changed.files['deploy/gitops-changer/kustomization.yaml'],
    );
    expect(kustomization.resources).toContain(
      '2-persistentvolumeclaim-gitops-changer-model-cache-shared.yaml',
    );
    expect(kustomization.resources).not.toContain(
      '2-persistentvolumeclaim-gitops-changer-model-cache.yaml',
    );
    // The claim of one replica leaves the repository with the change.
    expect(changed.deleted).toEqual([
      'deploy/gitops-changer/2-persistentvolumeclaim-gitops-changer-model-cache.yaml',
    ]);
    expect(
      (await api('GET', '/api/gpu/teams/ml-platform/quota')).body
        .reservedGpuEquivalents['l4-ondemand'],
    ).toBe(quotaBefore + 1);
    expect(change.output?.links?.[0]).toMatchObject({
      url: `https://github.com/ml-platform/gitops/pull/${changed.number}`,
    });

    const decommission = await runTask(
      'decommission-gpu-model-service-gitops',
      {
        entity: 'component:default/gitops-changer',
        repoUrl: 'github.com?owner=ml-platform&repo=gitops',
      },
    );
    expect({
      status: decommission.task.status,
      log: decommission.log,
    }).toMatchObject({ status: 'completed' });
    const removed = github.pullRequests.at(-1)!;
    expect(removed).toMatchObject({
      title: 'Decommission GPU model service gitops-changer',
      head: 'ml-platform:gpu-service-gitops-changer-decommission',
      files: {},
    });
    // What the directory holds now: the files of the changed spec.
    expect(removed.deleted.sort()).toEqual(Object.keys(changed.files).sort());
    expect(removed.body).toContain(
      `| Cost per month | ${detail.monthlyCost} | $0.00 |`,
    );
    // This backend does not read the dry-run cluster back: the quota is released at once, and the text says so.
    expect(removed.body).toContain('released already');
    expect(
      (await api('GET', '/api/gpu/teams/ml-platform/quota')).body
        .reservedGpuEquivalents['l4-ondemand'] ?? 0,
    ).toBe(quotaBefore - 1);
    expect((await servicesNamed('gitops-changer'))[0].status).toBe('deleted');
  });

  it('retries a GitOps service whose request was closed unmerged through a new pull request it then follows; a retry over quota writes nothing', async () => {
    const repoUrl = 'github.com?owner=ml-platform&repo=gitops';
    const created = await runTask('gpu-model-service-gitops', {
      name: 'gitops-retried',
      owner: 'group:default/ml-platform',
      model: 'llama-3.1-8b',
      runtime: 'vllm',
      dtype: 'bf16',
      maxModelLen: 8192,
      concurrency: 16,
      replicas: 1,
      environment: 'dev',
      placement: { tier: 'dedicated', pool: 'l4-ondemand' },
      repoUrl,
    });
    expect({ status: created.task.status, log: created.log }).toMatchObject({
      status: 'completed',
    });
    const [service] = await servicesNamed('gitops-retried');
    const first = github.pullRequests.at(-1)!;
    const firstUrl = `https://github.com/ml-platform/gitops/pull/${first.number}`;
    const held = async () =>
      (await api('GET', '/api/gpu/teams/ml-platform/quota')).body
        .reservedGpuEquivalents['l4-ondemand'] ?? 0;
    const closedUnmerged = (number: number) => {
      github.closeUnmerged(number);
      return until('the follower to roll the request back', async () => {
        // A round already running (started by an earlier trigger) is waited for by the next probe.
        await gpuScheduler!.triggerTask('gpu-gitops-follow').catch(() => {});
        const { body } = await api('GET', `/api/gpu/services/${service.id}`);
        return body.reason === 'PullRequestClosed' ? body : undefined;
      });
    };
    const heldBefore = await held();
    expect(await closedUnmerged(first.number)).toMatchObject({
      status: 'deleted',
      pullRequest: { url: firstUrl, state: 'closed' },
    });
    expect(await held()).toBe(heldBefore - 1);

    const retry = await runTask('retry-gpu-model-service-gitops', {
      entity: 'component:default/gitops-retried',
      repoUrl,
    });
    expect({ status: retry.task.status, log: retry.log }).toMatchObject({
      status: 'completed',
    });
    const second = github.pullRequests.at(-1)!;
    expect(second).toMatchObject({
      number: first.number + 1,
      title: 'Retry GPU model service gitops-retried',
      head: 'ml-platform:gpu-service-gitops-retried-retry-2',
    });
    // The same directory as the first request proposed, described for a reviewer.
    expect(Object.keys(second.files).sort()).toEqual(
      Object.keys(first.files).sort(),
    );
    expect(second.body).toContain(
      `**Why the last request ended:** its pull request ${firstUrl} was closed without merging`,
    );
    expect(second.body).toContain(
      `| Cost per month | ${service.monthlyCost} |`,
    );
    expect(second.body).toContain('**Quota:** the team had ');
    expect(second.body).toContain('**Budget:** ');
    const { body: retried } = await api(
      'GET',
      `/api/gpu/services/${service.id}`,
    );
    expect(retried).toMatchObject({
      status: 'approved',
      reason: 'RenderedForGitOps',
      generation: 2,
      pullRequest: {
        url: `https://github.com/ml-platform/gitops/pull/${second.number}`,
        state: 'open',
      },
    });
    expect(retried.confirmBy).toBeUndefined();
    expect(await held()).toBe(heldBefore);
    expect(retry.output?.links?.[0]).toMatchObject({
      url: `https://github.com/ml-platform/gitops/pull/${second.number}`,
    });

    // Closed again; meanwhile the team's quota on the pool is taken away: the retry is refused with the reason.
    await closedUnmerged(second.number);
    const quota = (await api('GET', '/api/gpu/teams/ml-platform/quota')).body;
    const put = (pools: Record<string, number>) =>
      api('PUT', '/api/gpu/teams/ml-platform/quota', {
        pools,
        monthlyBudget: String(quota.monthlyBudgetMicros / 1_000_000),
      });
    expect((await put({ ...quota.pools, 'l4-ondemand': 0 })).status).toBe(200);
    try {
      const refused = await runTask('retry-gpu-model-service-gitops', {
        entity: 'component:default/gitops-retried',
        repoUrl,
      });
      expect(refused.task.status).toBe('failed');
      expect(refused.log).toContain(
        "The retry was refused: Retrying 'gitops-retried' would need the platform team's approval",
      );
      expect(github.pullRequests.at(-1)!.number).toBe(second.number);
      expect((await servicesNamed('gitops-retried'))[0]).toMatchObject({
        status: 'deleted',
        reason: 'PullRequestClosed',
      });
    } finally {
      expect((await put(quota.pools)).status).toBe(200);
    }
  });
});
