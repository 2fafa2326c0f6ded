import request from 'supertest';
import { asUser } from './__testUtils__/demoUsers';
import {
  lowerMlPlatformL4Quota,
  requestBeyondL4Quota,
} from './__testUtils__/requestsBeyondQuota';
import { startDemoPolicyBackend } from './__testUtils__/startDemoPolicyBackend';

jest.setTimeout(60_000);

const start = () => startDemoPolicyBackend();

type Server = Awaited<ReturnType<typeof start>>;

/** ml-platform asks for more dedicated L4 GPUs than its quota of 2: the request waits for approval. */
async function pendingService(server: Server, name: string) {
  await lowerMlPlatformL4Quota(server);
  const created = await requestBeyondL4Quota(server, name);
  expect(created.status).toBe('pending-approval');
  return created;
}

async function expectNothingHeld(server: Server, id: string, status: string) {
  const cost = await request(server)
    .get(`/api/gpu/services/${id}/cost?window=24h`)
    .expect(200);
  expect(cost.body).toMatchObject({
    serviceId: id,
    status,
    allocationMicros: 0,
    reservedMicros: 0,
    monthToDate: { allocationMicros: 0 },
    projectedMonthMicros: 0,
    monthlyAllocationMicros: 0,
  });
  const usage = await request(server)
    .get(`/api/gpu/services/${id}/usage?window=24h`)
    .expect(200);
  expect(usage.body.serviceId).toBe(id);
}

describe('cost and usage of services that hold nothing', () => {
  it('answers the cost and usage of a service waiting for approval (nothing held), not 404', async () => {
    const server = await start();
    const pending = await pendingService(server, 'waiting');
    await expectNothingHeld(server, pending.id, 'pending-approval');
  });

  it('answers the cost and usage of a rejected service (nothing held), not 404', async () => {
    const server = await start();
    const pending = await pendingService(server, 'refused');
    await request(server)
      .post(`/api/gpu/approvals/${pending.approval.id}/reject`)
      .set('Authorization', asUser('alice'))
      .send({ comment: 'Use the MIG tier' })
      .expect(200);
    await expectNothingHeld(server, pending.id, 'rejected');
  });

  it('still answers 404 for an id the backend does not know', async () => {
    const server = await start();
    const res = await request(server)
      .get('/api/gpu/services/00000000-0000-4000-8000-000000000000/cost')
      .expect(404);
    expect(res.body.error.message).toMatch(/No GPU service with id/);
  });
});
