import { summariserOnDedicatedL4 } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import request from 'supertest';
import { asUser } from './__testUtils__/demoUsers';
import { startDemoPolicyBackend } from './__testUtils__/startDemoPolicyBackend';

jest.setTimeout(90_000);

// The demo platform's l4-ondemand has 4 GPUs; ml-platform's quota there is 4 and search's 2: together 6.
const mlService = { ...summariserOnDedicatedL4, name: 'ml-three', replicas: 3 };
const searchService = (name: string) => ({
  ...summariserOnDedicatedL4,
  name,
  team: 'search',
});

/** ml-platform holds 3 of the pool's 4 GPUs and search 1: the pool is full, and both teams are within quota. */
async function fillPool(http: ReturnType<typeof request>) {
  const ml = await http
    .post('/api/gpu/services')
    .set('Authorization', asUser('bob'))
    .send({ request: mlService });
  expect(ml.status).toBe(201);
  expect(ml.body.status).not.toBe('pending-approval');
  const search = await http
    .post('/api/gpu/services')
    .set('Authorization', asUser('carol'))
    .send({ request: searchService('search-one') });
  expect(search.status).toBe(201);
  expect(search.body.status).not.toBe('pending-approval');
  return ml.body;
}

describe('pool capacity at create, change and quote over HTTP', () => {
  it('refuses with 409, reserving nothing, when the platform refuses requests beyond a pool', async () => {
    const http = request(
      await startDemoPolicyBackend({
        admission: { whenOverPoolCapacity: 'refuse' },
      }),
    );
    const ml = await fillPool(http);

    const quote = await http
      .post('/api/gpu/quote')
      .set('Authorization', asUser('carol'))
      .send(searchService('search-two'));
    expect(quote.status).toBe(200);
    const option = quote.body.options.find(
      (o: { slice: { pool: string } }) => o.slice.pool === 'l4-ondemand',
    );
    expect(option.quota.fits).toBe(true);
    expect(option.poolCapacity).toMatchObject({
      pool: 'l4-ondemand',
      capacityGpuEquivalents: 4,
      heldGpuEquivalents: 4,
      freeGpuEquivalents: 0,
      fits: false,
    });
    expect(option.verdict).toBe('forbidden');

    const refused = await http
      .post('/api/gpu/services')
      .set('Authorization', asUser('carol'))
      .send({ request: searchService('search-two') });
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toMatch(
      /Over the free capacity of pool 'l4-ondemand': it has 4 GPUs \(4 nodes x 1 GPU\), 4 GPU-equivalents are held by all teams and this request needs 1/,
    );
    const quota = await http
      .get('/api/gpu/teams/search/quota')
      .set('Authorization', asUser('carol'));
    expect(quota.body.reservedGpuEquivalents).toEqual({ 'l4-ondemand': 1 });

    // A change within quota beyond the pool is refused the same way, and the service keeps what it holds.
    const change = await http
      .patch(`/api/gpu/services/${ml.id}`)
      .set('Authorization', asUser('bob'))
      .send({ replicas: 4 });
    expect(change.status).toBe(409);
    expect(change.body.error.message).toMatch(/Over the free capacity/);
    const mlQuota = await http
      .get('/api/gpu/teams/ml-platform/quota')
      .set('Authorization', asUser('bob'));
    expect(mlQuota.body.reservedGpuEquivalents).toEqual({ 'l4-ondemand': 3 });

    const pools = await http
      .get('/api/gpu/pools/subscription')
      .set('Authorization', asUser('alice'));
    expect(pools.status).toBe(200);
    expect(pools.body.whenOverPoolCapacity).toBe('refuse');
    expect(
      pools.body.items.find((p: { pool: string }) => p.pool === 'l4-ondemand'),
    ).toEqual({
      pool: 'l4-ondemand',
      capacityGpuEquivalents: 4,
      quotaGpuEquivalents: 6,
      teams: 2,
      heldGpuEquivalents: 4,
      oversubscribed: true,
    });
    // Only the platform team reads every team's quota on the pools.
    await http
      .get('/api/gpu/pools/subscription')
      .set('Authorization', asUser('carol'))
      .expect(403);
  });

  it('sends a create beyond the pool to approval by default, with its typed reason', async () => {
    const http = request(await startDemoPolicyBackend());
    await fillPool(http);

    const created = await http
      .post('/api/gpu/services')
      .set('Authorization', asUser('carol'))
      .send({ request: searchService('search-two') });
    expect(created.status).toBe(201);
    expect(created.body.status).toBe('pending-approval');
    const approvals = await http
      .get('/api/gpu/approvals?state=pending')
      .set('Authorization', asUser('alice'));
    const approval = approvals.body.items.find(
      (a: { service?: { name: string } }) => a.service?.name === 'search-two',
    );
    // Once, with admission's code: the quote's copy of the same finding gives way to it.
    expect(
      approval.reasons.filter((r: { message: string }) =>
        r.message.startsWith('Over the free capacity'),
      ),
    ).toHaveLength(1);
    expect(approval.reasons).toContainEqual({
      code: 'over-pool-capacity',
      message: expect.stringMatching(
        /^Over the free capacity of pool 'l4-ondemand': .* An approver can approve it once capacity is free/,
      ),
    });
  });
});
