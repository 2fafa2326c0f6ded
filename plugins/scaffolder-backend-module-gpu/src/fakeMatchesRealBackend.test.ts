import {
  coreServices,
  createServiceFactory,
  DiscoveryService,
} from '@backstage/backend-plugin-api';
import {
  createMockDirectory,
  mockCredentials,
  mockServices,
  registerMswTestHooks,
  startTestBackend,
} from '@backstage/backend-test-utils';
import { demoPlatformConfig } from '@gpu-platform/backstage-plugin-gpu-common';
// The contract test boots the real gpu backend plugin, which a module may not import outside tests.
/* eslint-disable @backstage/no-mixed-plugin-imports */
import gpuPlugin from '@gpu-platform/backstage-plugin-gpu-backend';
import { databaseClosedOnShutdown } from '@gpu-platform/backstage-plugin-gpu-backend/testUtils';
/* eslint-enable @backstage/no-mixed-plugin-imports */
import { AddressInfo } from 'node:net';
import { setupServer } from 'msw/node';
import {
  createCheckpointingContext,
  mockContext,
  outputsOf,
} from './__testUtils__/actionContext';
import { fakeCatalog } from './__testUtils__/fakeCatalog';
import { fakeGpuBackend } from './__testUtils__/fakeGpuBackend';
import { summariserOnDedicatedL4 } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import { createServiceChangeAction } from './actions/serviceChange';
import { createServiceConfirmAction } from './actions/serviceConfirm';
import { createServiceCreateAction } from './actions/serviceCreate';
import { createServiceDeleteAction } from './actions/serviceDelete';
import { createServiceRenderAction } from './actions/serviceRender';
import { createServiceRetryAction } from './actions/serviceRetry';

/** A gpu backend the actions talk to, and how to read the quota a team holds there. */
interface Backend {
  discovery: DiscoveryService;
  heldGpuEquivalents(team: string): Promise<Record<string, number>>;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** Outputs with ids replaced, so runs against different backends compare equal. */
function normalise(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value).replace(UUID, '<uuid>'));
}

/**
 * The lifecycle the templates go through, run with the real actions: create (and a retry that lost its
 * checkpoint), a dry run, a request that waits for approval, a GitOps service rendered to files, changed (and a
 * change that waits for approval), delete (twice),
 * bad input and a taken name. Returns what each step answered and the quota held after it.
 */
async function runLifecycle(backend: Backend, workspacePath: string) {
  const deps = { discovery: backend.discovery, auth: mockServices.auth() };
  const create = createServiceCreateAction({
    ...deps,
    catalog: fakeCatalog().catalog,
  });
  const render = createServiceRenderAction(deps);
  const change = createServiceChangeAction(deps);
  const confirm = createServiceConfirmAction(deps);
  const retry = createServiceRetryAction(deps);
  const remove = createServiceDeleteAction({
    ...deps,
    catalog: fakeCatalog().catalog,
  });
  const log: Record<string, unknown> = {};
  const held = () => backend.heldGpuEquivalents('ml-platform');
  const failure = (error: Error) => ({
    name: error.name,
    message: error.message,
  });

  const first = createCheckpointingContext(summariserOnDedicatedL4, new Map());
  await create.handler(first);
  log.created = outputsOf(first);
  log.heldAfterCreate = await held();

  const retried = createCheckpointingContext(
    summariserOnDedicatedL4,
    new Map(),
  );
  await create.handler(retried);
  log.retrySameService =
    outputsOf(retried).serviceId === outputsOf(first).serviceId;
  log.heldAfterRetry = await held();

  const dryRun = mockContext(
    { ...summariserOnDedicatedL4, name: 'preview' },
    { isDryRun: true },
  );
  await create.handler(dryRun);
  log.dryRun = outputsOf(dryRun);
  log.heldAfterDryRun = await held();

  const big = mockContext({
    ...summariserOnDedicatedL4,
    name: 'big',
    replicas: 4,
  });
  await create.handler(big);
  log.pending = outputsOf(big);
  log.beyondCapacity = await create
    .handler(
      mockContext({ ...summariserOnDedicatedL4, name: 'huge', replicas: 5 }),
    )
    .catch(failure);

  const gitops = mockContext({
    ...summariserOnDedicatedL4,
    name: 'chatbot',
    model: 'llama-3.2-3b',
    runtime: 'ollama',
    dtype: 'int4',
    maxModelLen: 4096,
    concurrency: 2,
    environment: 'dev',
    tier: 'mps',
    pool: 'l4-mps',
    mode: 'gitops',
  });
  await create.handler(gitops);
  log.gitops = outputsOf(gitops);
  const rendered = mockContext(
    { serviceId: outputsOf(gitops).serviceId },
    { workspacePath },
  );
  await render.handler(rendered);
  log.rendered = outputsOf(rendered);

  const changed = mockContext(
    {
      serviceId: outputsOf(gitops).serviceId,
      replicas: 2,
      targetDir: 'changed/chatbot',
    },
    { workspacePath },
  );
  await change.handler(changed);
  log.changed = outputsOf(changed);
  log.heldAfterChange = await held();
  const changePreview = mockContext(
    {
      serviceId: outputsOf(gitops).serviceId,
      replicas: 3,
      targetDir: 'changed/chatbot-3',
    },
    { isDryRun: true, workspacePath },
  );
  await change.handler(changePreview);
  log.changePreview = outputsOf(changePreview);
  log.heldAfterChangePreview = await held();
  const overQuota = mockContext({
    serviceId: outputsOf(gitops).serviceId,
    replicas: 8,
    targetDir: 'changed/chatbot-8',
  });
  await change.handler(overQuota);
  log.changePending = outputsOf(overQuota);
  log.heldAfterPendingChange = await held();
  // A live GitOps service has nothing to retry: the backend refuses, with its reason.
  log.retryLive = await retry
    .handler(mockContext({ serviceId: outputsOf(gitops).serviceId }))
    .catch(failure);
  log.changeUnknown = await change
    .handler(
      mockContext({
        serviceId: '00000000-0000-4000-8000-000000000000',
        replicas: 2,
      }),
    )
    .catch(failure);

  const deleted = mockContext({ entityRef: 'component:default/summariser' });
  await remove.handler(deleted);
  log.deleted = outputsOf(deleted);
  log.heldAfterDelete = await held();
  const again = mockContext({ serviceId: outputsOf(first).serviceId });
  await remove.handler(again);
  log.deletedAgain = outputsOf(again);

  const provisional = mockContext({
    ...summariserOnDedicatedL4,
    name: 'kept',
    provisional: true,
  });
  await create.handler(provisional);
  log.provisional = outputsOf(provisional);
  const kept = { serviceId: outputsOf(provisional).serviceId };
  const confirmed = mockContext(kept);
  await confirm.handler(confirmed);
  log.confirmed = outputsOf(confirmed);
  const confirmedAgain = mockContext(kept);
  await confirm.handler(confirmedAgain);
  log.confirmedAgain = outputsOf(confirmedAgain);
  const unconfirmed = mockContext({
    ...summariserOnDedicatedL4,
    name: 'dropped',
    provisional: true,
  });
  await create.handler(unconfirmed);
  await remove.handler(
    mockContext({ serviceId: outputsOf(unconfirmed).serviceId }),
  );
  log.confirmDeleted = await confirm
    .handler(mockContext({ serviceId: outputsOf(unconfirmed).serviceId }))
    .catch(failure);
  log.heldAfterConfirm = await held();
  // Deleted on purpose (not a GitOps request that ended unmerged): not retried.
  log.retryDeleted = await retry
    .handler(mockContext({ serviceId: outputsOf(unconfirmed).serviceId }))
    .catch(failure);

  log.unknownModel = await create
    .handler(
      mockContext({ ...summariserOnDedicatedL4, name: 'x', model: 'gpt-17' }),
    )
    .catch(failure);
  log.nameTaken = await create
    .handler(
      mockContext(
        { ...summariserOnDedicatedL4, name: 'chatbot' },
        { taskId: 'other-task' },
      ),
    )
    .catch(failure);
  return normalise(log);
}

const results: Record<string, unknown> = {};

describe('the actions against the real gpu backend (dry-run cluster)', () => {
  it('create, retry, dry run, approval, GitOps render and delete behave as the templates expect', async () => {
    const { server } = await startTestBackend({
      features: [
        databaseClosedOnShutdown,
        gpuPlugin,
        mockServices.rootConfig.factory({ data: { gpu: demoPlatformConfig } }),
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
    const baseUrl = `http://localhost:${
      (server.address() as AddressInfo).port
    }/api/gpu`;
    const backend: Backend = {
      discovery: {
        getBaseUrl: async () => baseUrl,
        getExternalBaseUrl: async () => baseUrl,
      },
      async heldGpuEquivalents(team) {
        const res = await fetch(`${baseUrl}/teams/${team}/quota`);
        return (await res.json()).reservedGpuEquivalents;
      },
    };
    results.real = await runLifecycle(backend, createMockDirectory().path);

    expect(results.real).toMatchObject({
      created: { status: 'approved', mode: 'dry-run', serviceId: '<uuid>' },
      heldAfterCreate: { 'l4-ondemand': 1 },
      retrySameService: true,
      heldAfterRetry: { 'l4-ondemand': 1 },
      dryRun: { serviceId: 'dry-run', status: 'approved' },
      heldAfterDryRun: { 'l4-ondemand': 1 },
      pending: { status: 'pending-approval' },
      gitops: { status: 'approved', mode: 'gitops' },
      rendered: {
        mode: 'gitops',
        files: expect.arrayContaining(['kustomization.yaml']),
      },
      changed: {
        status: 'approved',
        mode: 'gitops',
        before: { replicas: 1, gpuEquivalents: 0.25 },
        after: { replicas: 2, gpuEquivalents: 0.5 },
        files: expect.arrayContaining(['kustomization.yaml']),
      },
      heldAfterChange: { 'l4-mps': 0.5 },
      changePending: {
        status: 'pending-approval',
        after: { replicas: 8 },
        files: [],
      },
      heldAfterPendingChange: { 'l4-mps': 0.5 },
      changePreview: {
        before: { replicas: 2 },
        after: { replicas: 3, gpuEquivalents: 0.75 },
        files: expect.arrayContaining(['kustomization.yaml']),
      },
      heldAfterChangePreview: { 'l4-mps': 0.5 },
      changeUnknown: { name: 'InputError' },
      deleted: { alreadyDeleted: false, deleted: [{ status: 'deleted' }] },
      deletedAgain: { alreadyDeleted: true, deleted: [] },
      unknownModel: { name: 'InputError' },
      nameTaken: { name: 'ConflictError' },
      provisional: { status: 'approved', serviceId: '<uuid>' },
      confirmed: { status: 'approved', serviceId: '<uuid>' },
      confirmedAgain: { status: 'approved', serviceId: '<uuid>' },
      confirmDeleted: {
        name: 'ConflictError',
        message: expect.stringContaining('can no longer be confirmed'),
      },
      retryLive: {
        name: 'ConflictError',
        message:
          'The retry was refused: Service chatbot is approved (RenderedForGitOps); only a failed service, or a GitOps service whose pull request was closed without merging, not merged in time or never confirmed, can be retried',
      },
      retryDeleted: {
        name: 'ConflictError',
        message:
          'The retry was refused: Service <uuid> is deleted; only a failed service can be retried',
      },
    });
    // Quota is released: only the GitOps chatbot (two MPS quarters of an L4 since its change) is still held.
    expect((results.real as any).heldAfterDelete).toEqual({ 'l4-mps': 0.5 });
    // The confirmed service is kept; the one deleted before its confirmation is not held.
    expect((results.real as any).heldAfterConfirm).toEqual({
      'l4-mps': 0.5,
      'l4-ondemand': 1,
    });
  }, 60_000);
});

describe('the same actions against the msw fake backend', () => {
  const fake = fakeGpuBackend();
  registerMswTestHooks(setupServer(...fake.handlers));

  it('answer exactly as they did against the real backend', async () => {
    const backend: Backend = {
      discovery: mockServices.discovery(),
      heldGpuEquivalents: async team => fake.heldGpuEquivalents(team),
    };
    results.fake = await runLifecycle(backend, createMockDirectory().path);
    expect(results.fake).toEqual(results.real);
  });
});
