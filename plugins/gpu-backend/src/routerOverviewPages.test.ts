import { summariserRequest } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import request from 'supertest';
import { asUser } from './__testUtils__/demoUsers';
import { startDemoPolicyBackend } from './__testUtils__/startDemoPolicyBackend';

jest.setTimeout(60_000);

describe('GET /overview and /overview/services', () => {
  it('answers totals over every service with each leaderboard’s first page, and pages the rest with cursors', async () => {
    const server = await startDemoPolicyBackend();
    const names = ['alpha', 'bravo', 'charlie', 'delta', 'echo'];
    for (const name of names) {
      await request(server)
        .post('/api/gpu/services')
        .send({ request: { ...summariserRequest, name } })
        .expect(201);
    }
    const get = (path: string) =>
      request(server).get(path).set('Authorization', asUser('alice'));

    const overview = (
      await get('/api/gpu/overview?window=1h&top=2').expect(200)
    ).body;
    expect(overview).not.toHaveProperty('services');
    expect(overview).not.toHaveProperty('recommendations');
    expect(overview.serviceCount).toBe(5);
    const { cost, waste } = overview.leaderboards;
    expect(cost.items).toHaveLength(2);
    expect(cost.totalCount).toBe(5);
    expect(cost.nextCursor).toEqual(expect.any(String));
    // Dry runs: an idle figure of 0 each (nothing allocated), so all five on the waste leaderboard too.
    expect(waste.items).toHaveLength(2);
    expect(waste.totalCount).toBe(5);

    // The same leaderboard page by page from the overview's cursor: the services not on its first page, once each.
    const rest: string[] = [];
    let cursor: string | undefined = cost.nextCursor;
    while (cursor) {
      const page = (
        await get(
          `/api/gpu/overview/services?window=1h&limit=2&cursor=${cursor}`,
        ).expect(200)
      ).body;
      expect(page.totalCount).toBe(5);
      rest.push(...page.items.map((s: { name: string }) => s.name));
      cursor = page.nextCursor;
    }
    const first = cost.items.map((s: { name: string }) => s.name);
    expect([...first, ...rest].sort()).toEqual(names);

    const byName = (
      await get(
        '/api/gpu/overview/services?window=1h&orderBy=name&order=asc&search=A',
      ).expect(200)
    ).body;
    // alpha, bravo, charlie, delta: every one but echo has an a; the team (ml-platform) has one too, so all five.
    expect(byName.items.map((s: { name: string }) => s.name)).toEqual(names);

    const found = (
      await get('/api/gpu/overview/services?window=1h&search=char').expect(200)
    ).body;
    expect(found).toMatchObject({
      totalCount: 1,
      items: [{ name: 'charlie' }],
    });

    const otherOrder = await get(
      `/api/gpu/overview/services?window=1h&order=asc&cursor=${cost.nextCursor}`,
    );
    expect(otherOrder.status).toBe(400);
    expect(otherOrder.body.error.message).toMatch(
      /^cursor must be the nextCursor of a previous page/,
    );
    const tooMany = await get('/api/gpu/overview/services?limit=500');
    expect(tooMany.status).toBe(400);
    const unknownCluster = await get('/api/gpu/overview/services?cluster=x');
    expect(unknownCluster.status).toBe(400);
  });
});
