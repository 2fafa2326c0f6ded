import {
  mockServices,
  registerMswTestHooks,
} from '@backstage/backend-test-utils';
import { summariserOnDedicatedL4 } from '@internal/backstage-plugin-gpu-common/testUtils';
import { setupServer } from 'msw/node';
import {
  createCheckpointingContext,
  mockContext,
  outputsOf,
} from '../__testUtils__/actionContext';
import { fakeGpuBackend } from '../__testUtils__/fakeGpuBackend';
import { createServiceCreateAction } from './serviceCreate';

describe('gpu:service:create', () => {
  const backend = fakeGpuBackend();
  const server = setupServer(...backend.handlers);
  registerMswTestHooks(server);

  const action = createServiceCreateAction({
    discovery: mockServices.discovery(),
    auth: mockServices.auth(),
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
    const ctx = mockContext({ ...summariserOnDedicatedL4, replicas: 5 });
    await action.handler(ctx);
    expect(outputsOf(ctx)).toMatchObject({
      status: 'pending-approval',
      statusReason: expect.any(String),
    });
    expect(backend.heldGpuEquivalents('ml-platform')).toEqual({});
  });

  it('withdraws a request waiting for approval when told to fail', async () => {
    const ctx = mockContext({
      ...summariserOnDedicatedL4,
      replicas: 5,
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
      createCheckpointingContext(
        { ...summariserOnDedicatedL4, replicas: 5 },
        new Map(),
      );
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
});
