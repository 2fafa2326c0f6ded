import {
  createMockDirectory,
  mockServices,
  registerMswTestHooks,
} from '@backstage/backend-test-utils';
import fs from 'node:fs';
import { setupServer } from 'msw/node';
import yaml from 'yaml';
import {
  createCheckpointingContext,
  mockContext,
  outputsOf,
} from '../__testUtils__/actionContext';
import { fakeCatalog } from '../__testUtils__/fakeCatalog';
import { fakeGpuBackend } from '../__testUtils__/fakeGpuBackend';
import { summariserOnDedicatedL4 } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import { LocalCatalogDirectory } from '../catalog/LocalCatalogDirectory';
import { createServiceDeleteAction } from './serviceDelete';

const component = {
  apiVersion: 'backstage.io/v1alpha1',
  kind: 'Component',
  metadata: { name: 'summariser' },
  spec: { type: 'service', lifecycle: 'production', owner: 'ml-platform' },
};

describe('gpu:service:delete', () => {
  const backend = fakeGpuBackend();
  const server = setupServer(...backend.handlers);
  registerMswTestHooks(server);
  const dir = createMockDirectory();

  let local: LocalCatalogDirectory;
  let catalog: ReturnType<typeof fakeCatalog>;
  let action: ReturnType<typeof createServiceDeleteAction>;

  beforeEach(async () => {
    backend.reset();
    dir.setContent({
      'local-catalog': {
        'component-default-summariser.yaml': yaml.stringify(component),
      },
    });
    local = new LocalCatalogDirectory(
      dir.resolve('local-catalog'),
      dir.resolve('local-catalog/*.yaml'),
    );
    catalog = fakeCatalog(local);
    await catalog.catalog.refreshEntity(local.locationEntityRef, {
      credentials: {} as any,
    });
    action = createServiceDeleteAction({
      discovery: mockServices.discovery(),
      auth: mockServices.auth(),
      catalog: catalog.catalog,
      localCatalog: local,
    });
  });

  const deletes = () => backend.requests.filter(r => r.method === 'DELETE');

  it('finds the service by entity ref, deletes it (quota released) and unregisters the entity', async () => {
    const service = backend.seed({
      request: summariserOnDedicatedL4,
      entityRef: 'component:default/summariser',
    });
    backend.seed({
      request: { ...summariserOnDedicatedL4, name: 'other' },
      entityRef: 'component:default/other',
    });
    expect(backend.heldGpuEquivalents('ml-platform')).toEqual({
      'l4-ondemand': 2,
    });

    const ctx = mockContext({ entityRef: 'summariser', unregister: true });
    await action.handler(ctx);

    expect(backend.requests[0].path).toBe('/services');
    expect(deletes().map(r => r.path)).toEqual([`/services/${service.id}`]);
    expect(deletes()[0].authorization).toMatch(/^Bearer /);
    expect(outputsOf(ctx)).toEqual({
      deleted: [
        {
          serviceId: service.id,
          name: 'summariser',
          namespace: 'ml-platform',
          status: 'deleted',
          statusReason: 'Deleted (nothing was applied)',
          pool: 'l4-ondemand',
          gpuEquivalents: 1,
          monthlyCost: service.monthlyCost,
        },
      ],
      alreadyDeleted: false,
      awaitingPrune: false,
      unregistered: 'removed',
    });
    expect(backend.heldGpuEquivalents('ml-platform')).toEqual({
      'l4-ondemand': 1,
    });
    expect(fs.readdirSync(local.directory)).toEqual([]);
    expect(catalog.entities.has('component:default/summariser')).toBe(false);
  });

  it('succeeds again on a deleted service, saying there was nothing left to do', async () => {
    const service = backend.seed({
      request: summariserOnDedicatedL4,
      entityRef: 'component:default/summariser',
    });
    await action.handler(
      mockContext({ serviceId: service.id, unregister: true }),
    );
    const again = mockContext({ serviceId: service.id, unregister: true });
    await action.handler(again);
    expect(deletes()).toHaveLength(1);
    expect(outputsOf(again)).toEqual({
      deleted: [],
      alreadyDeleted: true,
      awaitingPrune: false,
      unregistered: 'not-registered',
    });
  });

  it('does not delete twice when the task is retried', async () => {
    const service = backend.seed({
      request: summariserOnDedicatedL4,
      entityRef: 'component:default/summariser',
    });
    const checkpoints = new Map<string, unknown>();
    await action.handler(
      createCheckpointingContext({ serviceId: service.id }, checkpoints),
    );
    // The retried step finds the service deleted and has nothing to do.
    await action.handler(
      createCheckpointingContext({ serviceId: service.id }, checkpoints),
    );
    expect(deletes()).toHaveLength(1);
  });

  it('keeps an entity defined in a source the catalog keeps reading, and says so', async () => {
    catalog.seed(
      { ...component, metadata: { name: 'chatbot' } },
      'file:/srv/examples/entities.yaml',
    );
    backend.seed({
      request: { ...summariserOnDedicatedL4, name: 'chatbot' },
      entityRef: 'component:default/chatbot',
    });
    const ctx = mockContext({
      entityRef: 'component:default/chatbot',
      unregister: true,
    });
    await action.handler(ctx);
    expect(outputsOf(ctx).unregistered).toBe('kept');
    expect(catalog.entities.has('component:default/chatbot')).toBe(true);
  });

  it('in a dry run says what it would delete and deletes nothing', async () => {
    backend.seed({
      request: summariserOnDedicatedL4,
      entityRef: 'component:default/summariser',
    });
    const ctx = mockContext(
      { entityRef: 'component:default/summariser', unregister: true },
      { isDryRun: true },
    );
    await action.handler(ctx);
    expect(outputsOf(ctx)).toMatchObject({
      alreadyDeleted: false,
      unregistered: 'skipped',
    });
    expect(deletes()).toEqual([]);
    expect(catalog.entities.has('component:default/summariser')).toBe(true);
  });

  it.each([
    [{}, /exactly one of serviceId or entityRef/],
    [
      { serviceId: 'a', entityRef: 'b' },
      /exactly one of serviceId or entityRef/,
    ],
    [
      { entityRef: 'component:default/Not Valid' },
      /entityRef: 'component:default\/Not Valid'/,
    ],
    [
      { serviceId: '00000000-0000-0000-0000-000000000000' },
      /serviceId: no GPU service with id/,
    ],
    [
      { entityRef: 'component:default/nobody' },
      /entityRef: no GPU service belongs to component:default\/nobody/,
    ],
    [
      { entityRef: 'component:default/summariser', unregister: 'yes' },
      /unregister: Expected boolean/,
    ],
  ])(
    'rejects %j with an InputError naming the field',
    async (input, message) => {
      await expect(action.handler(mockContext(input))).rejects.toMatchObject({
        name: 'InputError',
        message,
      });
      expect(deletes()).toEqual([]);
    },
  );
});

describe('gpu:service:delete of a GitOps service on a cluster the backend reads back', () => {
  const backend = fakeGpuBackend({ gitopsReadBack: { cluster: 'gpu-gitops' } });
  registerMswTestHooks(setupServer(...backend.handlers));

  it('records the decommission with the quota held until the controller has pruned its objects', async () => {
    const action = createServiceDeleteAction({
      discovery: mockServices.discovery(),
      auth: mockServices.auth(),
      catalog: fakeCatalog().catalog,
    });
    const service = backend.seed({
      request: summariserOnDedicatedL4,
      entityRef: 'component:default/summariser',
      mode: 'gitops',
    });
    const ctx = mockContext({ entityRef: 'component:default/summariser' });
    await action.handler(ctx);
    expect(outputsOf(ctx)).toMatchObject({
      deleted: [
        {
          serviceId: service.id,
          status: 'deleting',
          statusReason: expect.stringContaining(
            'quota stays held until they are gone',
          ),
        },
      ],
      alreadyDeleted: false,
      awaitingPrune: true,
    });
    expect(backend.heldGpuEquivalents('ml-platform')).toEqual({
      'l4-ondemand': 1,
    });

    // Asked again while the controller has not pruned: the same decommission, nothing released.
    const again = mockContext({ serviceId: service.id });
    await action.handler(again);
    expect(outputsOf(again)).toMatchObject({ awaitingPrune: true });
    expect(backend.heldGpuEquivalents('ml-platform')).toEqual({
      'l4-ondemand': 1,
    });

    backend.prune(service.id);
    expect(backend.heldGpuEquivalents('ml-platform')).toEqual({});
    const done = mockContext({ serviceId: service.id });
    await action.handler(done);
    expect(outputsOf(done)).toMatchObject({
      deleted: [],
      alreadyDeleted: true,
      awaitingPrune: false,
    });
  });
});
