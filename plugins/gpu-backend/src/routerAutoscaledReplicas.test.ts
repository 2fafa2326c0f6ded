import { summariserOnDedicatedL4 } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import request from 'supertest';
import { asUser } from './__testUtils__/demoUsers';
import { startDemoPolicyBackend } from './__testUtils__/startDemoPolicyBackend';

jest.setTimeout(90_000);

// ml-platform holds 4 of the demo platform's on-demand L4s (0.8048 USD/h each: 587.50 a month).
const autoscaled = {
  ...summariserOnDedicatedL4,
  name: 'bursty',
  autoscaling: {
    minReplicas: 1,
    maxReplicas: 4,
    targetQueueDepth: 4,
    engine: 'keda',
  },
};

async function quoteAndCreate(http: ReturnType<typeof request>) {
  const quote = await http
    .post('/api/gpu/quote')
    .set('Authorization', asUser('bob'))
    .send(autoscaled);
  expect(quote.status).toBe(200);
  const created = await http
    .post('/api/gpu/services')
    .set('Authorization', asUser('bob'))
    .send({ request: autoscaled });
  expect(created.status).toBe(201);
  const quota = await http
    .get('/api/gpu/teams/ml-platform/quota')
    .set('Authorization', asUser('bob'));
  expect(quota.status).toBe(200);
  return {
    option: quote.body.recommended,
    service: created.body,
    reserved: quota.body.reservedGpuEquivalents,
  };
}

describe('autoscaled services reserved and priced by gpu.admission.autoscaledReplicas, over HTTP', () => {
  it('reserves and prices the maximum by default, and the quote says so', async () => {
    const http = request(await startDemoPolicyBackend());
    const { option, service, reserved } = await quoteAndCreate(http);
    expect(option.replicas).toBe(4);
    expect(option.scaling).toEqual({
      basis: 'maximum',
      minReplicas: 1,
      maxReplicas: 4,
      burstReplicas: 0,
    });
    expect(option.cost.monthly).toBe(4 * 587_504_000);
    expect(option.cost.burstMonthly).toBeUndefined();
    expect(option.quota.burstReplicasWithinQuota).toBeUndefined();
    // Admission reserves what the quote priced.
    expect(service.status).not.toBe('pending-approval');
    expect(service.gpuEquivalents).toBe(4);
    expect(service.monthlyCost).toBe('$2,350.02');
    expect(reserved).toEqual({ 'l4-ondemand': 4 });
  });

  it('reserves and prices the minimum under minimum-plus-burst, with the burst’s cost and the room for it', async () => {
    const http = request(
      await startDemoPolicyBackend({
        admission: { autoscaledReplicas: 'minimum-plus-burst' },
      }),
    );
    const { option, service, reserved } = await quoteAndCreate(http);
    expect(option.replicas).toBe(1);
    expect(option.scaling).toEqual({
      basis: 'minimum-plus-burst',
      minReplicas: 1,
      maxReplicas: 4,
      burstReplicas: 3,
    });
    expect(option.cost.monthly).toBe(587_504_000);
    expect(option.cost.burstMonthly).toBe(3 * 587_504_000);
    expect(option.quota).toMatchObject({
      requested: 1,
      remaining: 3,
      burstReplicasWithinQuota: 3,
    });
    expect(service.gpuEquivalents).toBe(1);
    expect(service.monthlyCost).toBe('$587.50');
    expect(reserved).toEqual({ 'l4-ondemand': 1 });

    // The next quote sees the reservation: three L4s left, two after one more replica, so two of three can burst.
    const next = await http
      .post('/api/gpu/quote')
      .set('Authorization', asUser('bob'))
      .send({ ...autoscaled, name: 'bursty-two' });
    expect(next.body.recommended.quota).toMatchObject({
      used: 1,
      remaining: 2,
      burstReplicasWithinQuota: 2,
    });
  });

  it('does not start with a policy it does not know', async () => {
    await expect(
      startDemoPolicyBackend({
        admission: { autoscaledReplicas: 'minimum' },
      }),
    ).rejects.toThrow(
      /gpu\.admission\.autoscaledReplicas: "minimum" is not a policy/,
    );
  });
});
