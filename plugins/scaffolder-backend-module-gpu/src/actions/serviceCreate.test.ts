import {
  createMockDirectory,
  mockServices,
  registerMswTestHooks,
} from '@backstage/backend-test-utils';
import {
  summariserBeyondQuota,
  summariserOnDedicatedL4,
} from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import { setupServer } from 'msw/node';
import {
  createCheckpointingContext,
  mockContext,
  outputsOf,
} from '../__testUtils__/actionContext';
import { fakeCatalog } from '../__testUtils__/fakeCatalog';
import { fakeGpuBackend } from '../__testUtils__/fakeGpuBackend';
import { LocalCatalogDirectory } from '../catalog/LocalCatalogDirectory';
import fs from 'node:fs';
import yaml from 'yaml';
import { createServiceCreateAction } from './serviceCreate';

describe('gpu:service:create', () => {
  const backend = fakeGpuBackend();
  const server = setupServer(...backend.handlers);
  registerMswTestHooks(server);

  const action = createServiceCreateAction({
    discovery: mockServices.discovery(),
    auth: mockServices.auth(),
    catalog: fakeCatalog().catalog,
  });

  const posts = () =>
    backend.requests.filter(r => r.method === 'POST' && r.path === '/services');

  beforeEach(() => backend.reset());

  it('creates the service on behalf of the initiator and outputs what the catalog entity needs', async () => {
    const ctx = mockContext(summariserOnDedicatedL4, { taskId: 'task-1' });
    await action.handler(ctx);

    expect(posts()).toHaveLength(1);
    expect(posts()[0].authorization).toMatch(/^Bearer /);
    expect(posts()[0].body).toEqual({
      request: summariserOnDedicatedL4,
      entityRef: 'component:default/summariser',
      requestKey: 'scaffolder:task-1:component:default/summariser',
    });
    const out = outputsOf(ctx);
    expect(out).toMatchObject({
      status: 'approved',
      namespace: 'ml-platform',
      mode: 'dry-run',
      endpoint: 'http://summariser.ml-platform.svc.cluster.local:8000',
      tier: 'dedicated',
      pool: 'l4-ondemand',
      monthlyCost: '$587.50',
      entityRef: 'component:default/summariser',
      annotations: {
        'backstage.io/kubernetes-id': 'summariser',
        'backstage.io/kubernetes-namespace': 'ml-platform',
        'gpu.backstage.io/service-id': out.serviceId,
      },
    });
    expect(out.serviceId).toMatch(/^[0-9a-f-]{36}$/);
    expect(backend.heldGpuEquivalents('ml-platform')).toEqual({
      'l4-ondemand': 1,
    });
  });

  it('does not create twice when the task is retried (checkpoint), nor when the checkpoint was lost (request key)', async () => {
    const checkpoints = new Map<string, unknown>();
    const first = createCheckpointingContext(
      summariserOnDedicatedL4,
      checkpoints,
    );
    await action.handler(first);
    const retried = createCheckpointingContext(
      summariserOnDedicatedL4,
      checkpoints,
    );
    await action.handler(retried);
    expect(posts()).toHaveLength(1);
    expect(outputsOf(retried).serviceId).toBe(outputsOf(first).serviceId);

    // The step ran again without its checkpoint: the backend answers with the first service.
    const lost = createCheckpointingContext(summariserOnDedicatedL4, new Map());
    await action.handler(lost);
    expect(posts()).toHaveLength(2);
    expect(outputsOf(lost).serviceId).toBe(outputsOf(first).serviceId);
    expect(backend.heldGpuEquivalents('ml-platform')).toEqual({
      'l4-ondemand': 1,
    });
  });

  it('in a dry run answers what would be created and creates nothing', async () => {
    const ctx = mockContext(summariserOnDedicatedL4, { isDryRun: true });
    await action.handler(ctx);
    expect(posts()[0].body).toMatchObject({ dryRun: true });
    expect(outputsOf(ctx)).toMatchObject({
      serviceId: 'dry-run',
      status: 'approved',
      namespace: 'ml-platform',
      endpoint: 'http://summariser.ml-platform.svc.cluster.local:8000',
    });
    expect(backend.heldGpuEquivalents('ml-platform')).toEqual({});
    const list = await fetch('http://localhost:0/api/gpu/services').then(r =>
      r.json(),
    );
    expect(list.items).toEqual([]);
  });

  it.each([
    [{ name: 'Summariser_1' }, /name: must be a DNS-1123 label/],
    [{ maxModelLen: -1 }, /maxModelLen: Number must be greater than 0/],
    [{ runtime: 'tgi' }, /runtime: Invalid enum value/],
    [{ entityRef: 'component:default/a:b' }, /entityRef:/],
    [
      { latencyBudget: { p95Seconds: 0 } },
      /latencyBudget\.p95Seconds: Number must be greater than or equal to 0\.1/,
    ],
    [
      { latencyBudget: { p95Seconds: -2 } },
      /latencyBudget\.p95Seconds: Number must be greater than or equal to 0\.1/,
    ],
    [
      { latencyBudget: { p95Seconds: '2' } },
      /latencyBudget\.p95Seconds: Expected number, received string/,
    ],
    [{ latencyBudget: {} }, /latencyBudget\.p95Seconds: Required/],
    [{ latencyBudget: 2 }, /latencyBudget: Expected object, received number/],
  ])(
    'rejects bad input %j with an InputError naming the field, without calling the backend',
    async (bad, message) => {
      const ctx = mockContext({ ...summariserOnDedicatedL4, ...bad });
      await expect(action.handler(ctx)).rejects.toMatchObject({
        name: 'InputError',
        message,
      });
      expect(backend.requests).toEqual([]);
    },
  );

  it("passes a latency budget on in the backend's request, which keeps it", async () => {
    const ctx = mockContext({
      ...summariserOnDedicatedL4,
      latencyBudget: { p95Seconds: 2 },
    });
    await action.handler(ctx);
    expect(posts()[0].body).toMatchObject({
      request: { ...summariserOnDedicatedL4, latencyBudget: { p95Seconds: 2 } },
    });
    expect(outputsOf(ctx).request.latencyBudget).toEqual({ p95Seconds: 2 });
  });

  it("refuses a latency budget on Ollama with the backend's reason, holding nothing", async () => {
    const { dtype: _vllmDtype, ...summariser } = summariserOnDedicatedL4;
    const ctx = mockContext({
      ...summariser,
      runtime: 'ollama',
      latencyBudget: { p95Seconds: 2 },
    });
    await expect(action.handler(ctx)).rejects.toMatchObject({
      name: 'InputError',
      message: expect.stringContaining(
        'latencyBudget needs the vllm runtime: ollama exports no request latency metrics to measure or alert on; allowed: runtime vllm, or no latencyBudget',
      ),
    });
    expect(backend.heldGpuEquivalents('ml-platform')).toEqual({});
    expect(outputsOf(ctx)).toEqual({});
  });

  it('passes on the backend rejection of a request it cannot place, holding nothing', async () => {
    const ctx = mockContext({ ...summariserOnDedicatedL4, model: 'gpt-17' });
    await expect(action.handler(ctx)).rejects.toMatchObject({
      name: 'InputError',
      message: /gpt-17/,
    });
    const tooBig = mockContext({
      ...summariserOnDedicatedL4,
      model: 'llama-3.1-70b',
      dtype: 'bf16',
      pool: 'l4-ondemand',
    });
    await expect(action.handler(tooBig)).rejects.toMatchObject({
      name: 'InputError',
    });
    expect(backend.heldGpuEquivalents('ml-platform')).toEqual({});
    expect(outputsOf(ctx)).toEqual({});
  });

  it('reports a request waiting for approval and lets the template continue by default', async () => {
    const ctx = mockContext(summariserBeyondQuota);
    await action.handler(ctx);
    expect(outputsOf(ctx)).toMatchObject({
      status: 'pending-approval',
      statusReason: expect.any(String),
    });
    expect(backend.heldGpuEquivalents('ml-platform')).toEqual({});
  });

  it('withdraws a request waiting for approval when told to fail', async () => {
    const ctx = mockContext({
      ...summariserBeyondQuota,
      whenPendingApproval: 'fail',
    });
    await expect(action.handler(ctx)).rejects.toMatchObject({
      name: 'InputError',
      message: /needs approval .* withdrawn/,
    });
    const deletes = backend.requests.filter(r => r.method === 'DELETE');
    expect(deletes).toHaveLength(1);
    const list = await fetch('http://localhost:0/api/gpu/services').then(r =>
      r.json(),
    );
    expect(list.items.map((s: { status: string }) => s.status)).toEqual([
      'deleted',
    ]);
  });

  it('fails with the reason when a retried request was rejected by an approver', async () => {
    const checkpointsLost = () =>
      createCheckpointingContext(summariserBeyondQuota, new Map());
    const first = checkpointsLost();
    await action.handler(first);
    backend.reject(outputsOf(first).serviceId, 'use the shared pool');
    await expect(action.handler(checkpointsLost())).rejects.toMatchObject({
      name: 'ConflictError',
      message: /rejected: use the shared pool; nothing is reserved/,
    });
  });

  it('fails with a ConflictError when the name is taken in the namespace', async () => {
    await action.handler(mockContext(summariserOnDedicatedL4, { taskId: 'a' }));
    const other = mockContext(summariserOnDedicatedL4, { taskId: 'b' });
    await expect(action.handler(other)).rejects.toMatchObject({
      name: 'ConflictError',
      message: /already exists/,
    });
  });

  describe('an entityRef already in the catalog', () => {
    const dir = createMockDirectory();
    let local: LocalCatalogDirectory;

    function component(owner: string) {
      return {
        apiVersion: 'backstage.io/v1alpha1',
        kind: 'Component',
        metadata: { name: 'summariser' },
        spec: { type: 'service', lifecycle: 'production', owner },
      };
    }

    /** The action on a catalog holding `summariser`, owned by `owner`, from the local directory or from `managedBy`. */
    async function withExisting(owner: string, managedBy?: string) {
      dir.setContent({ 'local-catalog': {} });
      local = new LocalCatalogDirectory(
        dir.resolve('local-catalog'),
        dir.resolve('local-catalog/*.yaml'),
      );
      const fake = fakeCatalog(local);
      if (managedBy) {
        fake.seed(component(owner), managedBy);
      } else {
        fs.writeFileSync(
          dir.resolve('local-catalog/component-default-summariser.yaml'),
          yaml.stringify(component(owner)),
        );
        await fake.catalog.refreshEntity(local.locationEntityRef, {} as any);
      }
      const before = structuredClone(
        fake.entities.get('component:default/summariser'),
      );
      return {
        fake,
        before,
        action: createServiceCreateAction({
          discovery: mockServices.discovery(),
          auth: mockServices.auth(),
          catalog: fake.catalog,
          localCatalog: local,
        }),
      };
    }

    it("refuses another team's component, in a dry run too, before anything is created or previewed", async () => {
      const {
        fake,
        before,
        action: create,
      } = await withExisting('group:default/search');
      for (const isDryRun of [false, true]) {
        await expect(
          create.handler(mockContext(summariserOnDedicatedL4, { isDryRun })),
        ).rejects.toMatchObject({
          name: 'NotAllowedError',
          message:
            'component:default/summariser is owned by group:default/search; a GPU service of group:default/ml-platform ' +
            'cannot be bound to it, and it cannot be registered for group:default/ml-platform: choose another name',
        });
      }
      expect(backend.requests).toEqual([]);
      expect(backend.heldGpuEquivalents('ml-platform')).toEqual({});
      expect(fake.entities.get('component:default/summariser')).toEqual(before);
      expect(fs.readdirSync(local.directory)).toEqual([
        'component-default-summariser.yaml',
      ]);
    });

    it("binds the service to a component of the team's defined outside the local catalog directory, leaving it as it is", async () => {
      const {
        fake,
        before,
        action: create,
      } = await withExisting(
        'group:default/ml-platform',
        'file:/srv/backstage/examples/entities.yaml',
      );
      const ctx = mockContext({
        ...summariserOnDedicatedL4,
        entityRef: 'component:default/summariser',
      });
      await create.handler(ctx);
      expect(outputsOf(ctx)).toMatchObject({
        status: 'approved',
        entityRef: 'component:default/summariser',
      });
      expect(posts()).toHaveLength(1);
      expect(fake.entities.get('component:default/summariser')).toEqual(before);
      expect(fs.readdirSync(local.directory)).toEqual([]);
    });

    it("binds the service to the team's own component from the local catalog directory (owner written as a bare name)", async () => {
      const { action: create } = await withExisting('ml-platform');
      const ctx = mockContext(summariserOnDedicatedL4);
      await create.handler(ctx);
      expect(outputsOf(ctx)).toMatchObject({
        status: 'approved',
        entityRef: 'component:default/summariser',
      });
      expect(posts()).toHaveLength(1);
    });

    it("refuses a name whose file in the local catalog directory is another team's, even when the catalog does not show it", async () => {
      const { fake, action: create } = await withExisting(
        'group:default/search',
      );
      fake.entities.clear(); // not read yet, or hidden from the user
      await expect(
        create.handler(mockContext(summariserOnDedicatedL4)),
      ).rejects.toMatchObject({
        name: 'NotAllowedError',
        message:
          'component:default/summariser is owned by group:default/search (file component-default-summariser.yaml ' +
          'of the local catalog directory); it cannot be registered or bound for group:default/ml-platform: ' +
          'choose another name',
      });
      expect(backend.requests).toEqual([]);
    });

    it("checks that the owner given for catalog-info.yaml is the team's group before anything is created", async () => {
      const { action: create } = await withExisting('ml-platform');
      for (const [owner, message] of [
        [
          'group:default/search',
          /owner: group:default\/search is not the group of team ml-platform/,
        ],
        [
          'group:other/ml-platform',
          /owner: group:other\/ml-platform is not the group of team ml-platform/,
        ],
        ['group:default/ml-platform\nsystem: evil', /owner: .* invalid name/],
        ['user:default/mock', /owner: .* only a group/],
      ] as const) {
        await expect(
          create.handler(mockContext({ ...summariserOnDedicatedL4, owner })),
        ).rejects.toMatchObject({ name: 'InputError', message });
      }
      expect(backend.requests).toEqual([]);
      const ctx = mockContext({
        ...summariserOnDedicatedL4,
        owner: 'group:default/ml-platform',
      });
      await create.handler(ctx);
      expect(outputsOf(ctx).status).toBe('approved');
      // The owner is the template's, not part of the service request.
      expect(posts()[0].body).toMatchObject({
        request: summariserOnDedicatedL4,
      });
      expect(JSON.stringify(posts()[0].body)).not.toContain('owner');
    });

    it('refuses an entityRef that is not a Component, without calling the catalog or the backend', async () => {
      const { fake, action: create } = await withExisting('ml-platform');
      const calls = fake.calls.length;
      await expect(
        create.handler(
          mockContext({
            ...summariserOnDedicatedL4,
            entityRef: 'group:default/ml-platform',
          }),
        ),
      ).rejects.toMatchObject({
        name: 'InputError',
        message:
          /^Invalid input to gpu:service:create: entityRef: "group:default\/ml-platform" is of kind "group"; only a component/,
      });
      expect(fake.calls.length).toBe(calls);
      expect(backend.requests).toEqual([]);
    });
  });
});
