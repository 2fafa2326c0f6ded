import { demoPlatformConfig } from '@gpu-platform/backstage-plugin-gpu-common';
import request from 'supertest';
import { asUser } from './__testUtils__/demoUsers';
import {
  lowerMlPlatformL4Quota,
  requestBeyondL4Quota,
  setMlPlatformL4Quota,
} from './__testUtils__/requestsBeyondQuota';
import { startDemoPolicyBackend } from './__testUtils__/startDemoPolicyBackend';

jest.setTimeout(60_000);

const start = () => startDemoPolicyBackend();

type Server = Awaited<ReturnType<typeof start>>;

/** ml-platform asks for three dedicated L4 services of 3 replicas each on a quota of 2: all three wait for approval. */
async function threePendingRequests(server: Server) {
  await lowerMlPlatformL4Quota(server);
  const names = ['big-a', 'big-b', 'big-c'];
  for (const name of names) {
    const created = await requestBeyondL4Quota(server, name);
    expect(created.status).toBe('pending-approval');
  }
  return names;
}

describe('governance views: one request each', () => {
  it('pages pending approvals with their services and the count of all that match, and searches them', async () => {
    const server = await start();
    const names = await threePendingRequests(server);

    const first = await request(server)
      .get('/api/gpu/approvals?state=pending&limit=2')
      .set('Authorization', asUser('alice'))
      .expect(200);
    expect(first.body.totalCount).toBe(3);
    expect(first.body.items.map((a: any) => a.service.name)).toEqual(
      names.slice(0, 2),
    );
    expect(first.body.items[0]).toMatchObject({
      state: 'pending',
      team: 'ml-platform',
      service: {
        name: 'big-a',
        status: 'pending-approval',
        placement: { tier: 'dedicated', pool: 'l4-ondemand' },
        gpuEquivalents: 3,
      },
      overage: { overQuota: true },
    });
    expect(first.body.items[0].service.id).toBe(first.body.items[0].serviceId);

    const second = await request(server)
      .get(
        `/api/gpu/approvals?state=pending&limit=2&cursor=${first.body.nextCursor}`,
      )
      .set('Authorization', asUser('alice'))
      .expect(200);
    expect(second.body.items.map((a: any) => a.service.name)).toEqual([
      'big-c',
    ]);
    expect(second.body.totalCount).toBe(3);
    expect(second.body.nextCursor).toBeUndefined();

    const searched = await request(server)
      .get('/api/gpu/approvals?state=pending&search=BIG-B')
      .set('Authorization', asUser('alice'))
      .expect(200);
    expect(searched.body.items.map((a: any) => a.service.name)).toEqual([
      'big-b',
    ]);
    expect(searched.body.totalCount).toBe(1);

    // The search team sees none of ml-platform's approvals, and no count of them.
    const carol = await request(server)
      .get('/api/gpu/approvals?state=pending')
      .set('Authorization', asUser('carol'))
      .expect(200);
    expect(carol.body).toEqual({ items: [], totalCount: 0 });

    const bad = await request(server)
      .get('/api/gpu/approvals?limit=0')
      .expect(400);
    expect(bad.body.error.message).toMatch(/limit/);
  });

  it('lists a pending request with why it needs an approver now: a quota raised since drops its quota reasons', async () => {
    const server = await start();
    await lowerMlPlatformL4Quota(server);
    const created = await requestBeyondL4Quota(server, 'big-a');
    const overQuota = {
      code: 'over-quota',
      message:
        "Team 'ml-platform' asks for 3 GPU-equivalents in pool 'l4-ondemand' but only 2 of 2 are free",
    };
    expect(created.approval.reasons).toContainEqual(overQuota);
    const listed = async () =>
      (
        await request(server)
          .get('/api/gpu/approvals?state=pending')
          .set('Authorization', asUser('alice'))
          .expect(200)
      ).body.items[0];
    expect((await listed()).reasons).toEqual([overQuota]);

    // The platform team raises the quota: the listed request no longer says the quota is short.
    await setMlPlatformL4Quota(server, 8);
    const now = await listed();
    expect(now).toMatchObject({
      id: created.approval.id,
      state: 'pending',
      reasons: [],
      overage: { overQuota: false },
    });
  });

  it('sorts pending approvals on the server by service, team, cost or time, a page at a time in that order', async () => {
    const server = await start();
    await threePendingRequests(server);
    const names = async (query: string) => {
      const res = await request(server)
        .get(`/api/gpu/approvals?state=pending&${query}`)
        .set('Authorization', asUser('alice'))
        .expect(200);
      return {
        names: res.body.items.map((a: any) => a.service.name),
        nextCursor: res.body.nextCursor as string | undefined,
        totalCount: res.body.totalCount,
      };
    };
    const first = await names('orderBy=service&order=desc&limit=2');
    expect(first).toMatchObject({ names: ['big-c', 'big-b'], totalCount: 3 });
    const second = await names(
      `orderBy=service&order=desc&limit=2&cursor=${first.nextCursor}`,
    );
    expect(second).toEqual({ names: ['big-a'], totalCount: 3 });
    expect((await names('orderBy=requestedAt&order=desc')).names).toEqual([
      'big-c',
      'big-b',
      'big-a',
    ]);
    // One team, one cost: the ties go by approval id, the same on every read.
    const byTeam = (await names('orderBy=team')).names;
    expect(byTeam).toHaveLength(3);
    expect((await names('orderBy=monthlyCost&order=desc')).names).toHaveLength(
      3,
    );
    expect((await names('orderBy=team')).names).toEqual(byTeam);

    // A cursor of one order is refused under another (it would skip or repeat rows).
    const other = await request(server)
      .get(
        `/api/gpu/approvals?state=pending&orderBy=service&order=asc&cursor=${first.nextCursor}`,
      )
      .set('Authorization', asUser('alice'))
      .expect(400);
    expect(other.body.error.message).toBe(
      'cursor is the nextCursor of a page sorted by service desc, not by service asc; read the first page again after changing the order',
    );
    const unknown = await request(server)
      .get('/api/gpu/approvals?orderBy=cost')
      .set('Authorization', asUser('alice'))
      .expect(400);
    expect(unknown.body.error.message).toMatch(
      /orderBy must be equal to one of the allowed values: requestedAt, team, service, monthlyCost/,
    );
  });

  it('reads the audit trail oldest first with order=asc, a page at a time', async () => {
    const server = await start();
    await threePendingRequests(server);
    const all = await request(server)
      .get('/api/gpu/audit?limit=100')
      .set('Authorization', asUser('alice'))
      .expect(200);
    const first = await request(server)
      .get('/api/gpu/audit?order=asc&limit=4')
      .set('Authorization', asUser('alice'))
      .expect(200);
    const next = await request(server)
      .get(`/api/gpu/audit?order=asc&limit=100&cursor=${first.body.nextCursor}`)
      .set('Authorization', asUser('alice'))
      .expect(200);
    expect(
      [...first.body.items, ...next.body.items].map((e: any) => e.id),
    ).toEqual(all.body.items.map((e: any) => e.id).reverse());
    expect(next.body.totalCount).toBe(all.body.items.length);
    // The other order's cursor would start the page in the wrong place: refused.
    const mixed = await request(server)
      .get(`/api/gpu/audit?cursor=${first.body.nextCursor}`)
      .set('Authorization', asUser('alice'))
      .expect(400);
    expect(mixed.body.error.message).toBe(
      'cursor is the nextCursor of a page read oldest first, not newest first; read the first page again after changing the order',
    );
  });

  it('names the service of every service, reservation and approval event of the audit trail, and counts the events', async () => {
    const server = await start();
    await threePendingRequests(server);
    const page = await request(server)
      .get('/api/gpu/audit?limit=4')
      .set('Authorization', asUser('alice'))
      .expect(200);
    expect(page.body.items).toHaveLength(4);
    const [newest] = page.body.items;
    expect(newest).toMatchObject({
      action: 'approval.request',
      subjectType: 'approval',
      service: { name: 'big-c', namespace: 'ml-platform' },
    });
    const all = await request(server)
      .get('/api/gpu/audit?limit=100')
      .set('Authorization', asUser('alice'))
      .expect(200);
    expect(page.body.totalCount).toBe(all.body.items.length);
    // Per request: service.create, reservation.request and approval.request, besides the quota changes.
    const perRequest = all.body.items.filter(
      (e: any) => e.subjectType !== 'quota',
    );
    expect(perRequest).toHaveLength(9);
    // Every event but the quota changes (about a team) names its service.
    expect(perRequest.map((e: any) => e.service?.name)).toEqual(
      Array(9).fill(expect.stringMatching(/^big-[abc]$/)),
    );
    expect(
      all.body.items
        .filter((e: any) => e.subjectType === 'quota')
        .map((e: any) => e.service),
    ).toEqual(Array(all.body.items.length - 9).fill(undefined));
    const next = await request(server)
      .get(`/api/gpu/audit?limit=4&cursor=${page.body.nextCursor}`)
      .set('Authorization', asUser('alice'))
      .expect(200);
    expect(next.body.items[0].id).toBe(all.body.items[4].id);
    expect(next.body.totalCount).toBe(all.body.items.length);
  });

  it('searches the audit trail on the server: the events of a service, its reservation and approval by its name; bad text is a 400', async () => {
    const server = await start();
    await threePendingRequests(server);
    const found = await request(server)
      .get('/api/gpu/audit?search=BIG-B&limit=2')
      .set('Authorization', asUser('alice'))
      .expect(200);
    expect(found.body.totalCount).toBe(3);
    const rest = await request(server)
      .get(`/api/gpu/audit?search=BIG-B&cursor=${found.body.nextCursor}`)
      .set('Authorization', asUser('alice'))
      .expect(200);
    const events = [...found.body.items, ...rest.body.items];
    expect(events.map((e: any) => [e.action, e.service?.name])).toEqual([
      ['approval.request', 'big-b'],
      ['reservation.request', 'big-b'],
      ['service.create', 'big-b'],
    ]);
    // Within what the caller may read: the search team sees none of ml-platform's events.
    const carol = await request(server)
      .get('/api/gpu/audit?search=big-b')
      .set('Authorization', asUser('carol'))
      .expect(200);
    expect(carol.body).toMatchObject({ items: [], totalCount: 0 });

    for (const bad of ['', '%20%20%20', 'x'.repeat(101)]) {
      const refused = await request(server)
        .get(`/api/gpu/audit?search=${bad}`)
        .set('Authorization', asUser('alice'))
        .expect(400);
      expect(refused.body.error.message).toMatch(/search/);
    }
  });

  it("lists every team's quota for the platform team and only the caller's teams' for others", async () => {
    const server = await start();
    const platform = await request(server)
      .get('/api/gpu/quotas')
      .set('Authorization', asUser('alice'))
      .expect(200);
    const teams = demoPlatformConfig.teams.map(t => t.name).sort();
    expect(platform.body.items.map((q: any) => q.team)).toEqual(teams);
    const bob = await request(server)
      .get('/api/gpu/quotas')
      .set('Authorization', asUser('bob'))
      .expect(200);
    expect(bob.body.items.map((q: any) => q.team)).toEqual(['ml-platform']);
    const single = await request(server)
      .get('/api/gpu/teams/ml-platform/quota')
      .set('Authorization', asUser('bob'))
      .expect(200);
    expect(bob.body.items[0]).toEqual(single.body);
    const dave = await request(server)
      .get('/api/gpu/quotas')
      .set('Authorization', asUser('dave'))
      .expect(200);
    expect(dave.body.items).toEqual([]);
  });
});
