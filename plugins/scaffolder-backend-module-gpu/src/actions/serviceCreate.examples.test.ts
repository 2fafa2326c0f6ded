import {
  mockServices,
  registerMswTestHooks,
} from '@backstage/backend-test-utils';
import { setupServer } from 'msw/node';
import yaml from 'yaml';
import { mockContext, outputsOf } from '../__testUtils__/actionContext';
import { fakeCatalog } from '../__testUtils__/fakeCatalog';
import { fakeGpuBackend } from '../__testUtils__/fakeGpuBackend';
import { createServiceCreateAction } from './serviceCreate';
import { examples } from './serviceCreate.examples';

describe('gpu:service:create examples', () => {
  // The examples' platform wakes services scaled to zero through KEDA's HTTP add-on (gpu.serviceDefaults.scaleToZero).
  const backend = fakeGpuBackend({
    serviceDefaults: { scaleToZero: { httpAddOn: {} } },
  });
  const server = setupServer(...backend.handlers);
  registerMswTestHooks(server);
  beforeEach(() => backend.reset());

  const action = createServiceCreateAction({
    discovery: mockServices.discovery(),
    auth: mockServices.auth(),
    catalog: fakeCatalog().catalog,
  });

  // Every step of every example (an example may show more than one use of the action).
  const steps = examples.flatMap(e =>
    yaml
      .parse(e.example)
      .steps.map(
        (step: { id: string; input: Record<string, unknown> }) =>
          [`${e.description} (${step.id})`, step.input] as const,
      ),
  );

  it.each(steps)('%s', async (_, input) => {
    const ctx = mockContext(input);
    await action.handler(ctx);
    const out = outputsOf(ctx);
    expect(out.serviceId).toMatch(/^[0-9a-f-]{36}$/);
    expect(out.annotations['gpu.backstage.io/service-id']).toBe(out.serviceId);
    expect(out.status).toBe(
      input.whenPendingApproval === 'continue'
        ? 'pending-approval'
        : 'approved',
    );
    // A latency budget reaches the backend's request as the example states it (none when it states none).
    expect(out.request.latencyBudget).toEqual(input.latencyBudget);
    // A service that scales to zero is given the endpoint that wakes it: the interceptor's, with the Host it routes by.
    const scalesToZero =
      (input.autoscaling as { minReplicas?: number } | undefined)
        ?.minReplicas === 0;
    expect(out.endpointHost).toBe(
      scalesToZero
        ? `${input.name}.${out.namespace}.svc.cluster.local`
        : undefined,
    );
  });
});
