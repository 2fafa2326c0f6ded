import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { InputError } from '@backstage/errors';
import {
  APPROVAL_ORDER_BY,
  ApprovalOrderBy,
  SortOrder,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { Knex } from 'knex';
import { storePlatform } from './__testUtils__/storePlatform';
import { DatabaseGpuStore } from './DatabaseGpuStore';
import { CreateServiceInput } from './types';

jest.setTimeout(60_000);

const databases = TestDatabases.create({ ids: ['POSTGRES_15', 'SQLITE_3'] });

const BOB = 'user:default/bob';
const ADMIN = 'user:default/platform-admin';
const T0 = Date.parse('2026-12-01T09:00:00.000Z');

/** A dev service on h100, where neither team has quota: it always waits for approval. */
function overQuota(
  name: string,
  team: string,
  monthlyCostMicros: number,
): CreateServiceInput {
  return {
    name,
    team,
    namespace: team,
    environment: 'dev',
    tier: 'dedicated',
    pool: 'h100',
    request: {
      name,
      team,
      model: 'llama-3.1-8b',
      runtime: 'vllm',
      maxModelLen: 8192,
      concurrency: 8,
      replicas: 1,
      environment: 'dev',
    },
    placement: { tier: 'dedicated', pool: 'h100', gpusPerReplica: 1 },
    mode: 'dry-run',
    reservation: { gpuEquivalents: 1, monthlyCostMicros },
    policy: { whenOverQuota: 'require-approval' },
    actor: BOB,
  };
}

/**
 * Nine requests with ties in every key: the same minute for three, the same team for several, the same cost for
 * pairs; the service names are unique (one live service per name and namespace).
 */
const REQUESTS: Array<{
  name: string;
  team: string;
  cost: number;
  minute: number;
}> = [
  { name: 'ocr', team: 'search', cost: 40_000_000, minute: 3 },
  { name: 'summariser', team: 'ml', cost: 10_000_000, minute: 1 },
  { name: 'embedder', team: 'ml', cost: 40_000_000, minute: 3 },
  { name: 'triage', team: 'search', cost: 5_000_000, minute: 0 },
  { name: 'chat', team: 'ml', cost: 10_000_000, minute: 3 },
  { name: 'rag', team: 'search', cost: 90_000_000, minute: 2 },
  { name: 'notebook', team: 'ml', cost: 5_000_000, minute: 4 },
  { name: 'batch', team: 'search', cost: 20_000_000, minute: 5 },
  { name: 'vision', team: 'ml', cost: 70_000_000, minute: 2 },
];

type Row = (typeof REQUESTS)[number] & { id: string };

/** The order the store must give: the key in `order`, ties by id ascending (as the database compares ids). */
function expected(rows: Row[], orderBy: ApprovalOrderBy, order: SortOrder) {
  const key = (r: Row): string | number => {
    switch (orderBy) {
      case 'requestedAt':
        return r.minute;
      case 'team':
        return r.team;
      case 'service':
        return r.name;
      default:
        return r.cost;
    }
  };
  const sign = order === 'asc' ? 1 : -1;
  return [...rows]
    .sort((a, b) => {
      const [ka, kb] = [key(a), key(b)];
      if (ka !== kb) return (ka < kb ? -1 : 1) * sign;
      return a.id < b.id ? -1 : 1;
    })
    .map(r => r.name);
}

describe.each(databases.eachSupportedId())(
  'approvals and the audit trail sorted and paged by keyset on %p',
  id => {
    let knex: Knex;
    let store: DatabaseGpuStore;
    let rows: Row[];
    const names = new Map<string, string>();

    beforeAll(async () => {
      knex = await databases.init(id);
      store = await DatabaseGpuStore.create({
        database: mockServices.database({ knex }),
        platform: storePlatform,
      });
      for (const team of ['ml', 'search']) {
        await store.putQuota({
          team,
          quota: { pools: { h100: 0 }, monthlyBudgetMicros: 10 ** 12 },
          actor: ADMIN,
        });
      }
      rows = [];
      for (const r of REQUESTS) {
        const created = await store.createServiceWithReservation(
          overQuota(r.name, r.team, r.cost),
        );
        const approval = created.approval!;
        // Requested at whole minutes, so several share a time.
        await knex('approvals')
          .where({ id: approval.id })
          .update({ requested_at: new Date(T0 + r.minute * 60_000) });
        rows.push({ ...r, id: approval.id });
        names.set(approval.serviceId, r.name);
      }
    });

    /** Every page of `limit` in the sort, following nextCursor; the names in page order. */
    async function readAll(
      orderBy: ApprovalOrderBy | undefined,
      order: SortOrder | undefined,
      limit: number,
    ) {
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await store.listApprovalPage({
          state: 'pending',
          orderBy,
          order,
          limit,
          cursor,
        });
        expect(page.totalCount).toBe(REQUESTS.length);
        expect(page.items.length).toBeLessThanOrEqual(limit);
        seen.push(...page.items.map(a => names.get(a.serviceId)!));
        cursor = page.nextCursor;
        pages += 1;
      } while (cursor && pages < 20);
      return { seen, pages };
    }

    it.each(
      APPROVAL_ORDER_BY.flatMap(orderBy =>
        (['asc', 'desc'] as const).map(order => [orderBy, order] as const),
      ),
    )(
      'pages by %s %s: every approval once, in the key order with ties by id',
      async (orderBy, order) => {
        const want = expected(rows, orderBy, order);
        for (const limit of [1, 2, 4, 50]) {
          const { seen, pages } = await readAll(orderBy, order, limit);
          expect(seen).toEqual(want);
          expect(pages).toBe(Math.max(1, Math.ceil(REQUESTS.length / limit)));
        }
      },
    );

    it('defaults to the queue: requested time, oldest first', async () => {
      const { seen } = await readAll(undefined, undefined, 2);
      expect(seen).toEqual(expected(rows, 'requestedAt', 'asc'));
    });

    it('searches and sorts together, and counts what matches', async () => {
      const page = await store.listApprovalPage({
        state: 'pending',
        search: 'search',
        orderBy: 'service',
        order: 'desc',
        limit: 50,
      });
      expect(page.items.map(a => names.get(a.serviceId))).toEqual([
        'triage',
        'rag',
        'ocr',
        'batch',
      ]);
      expect(page.totalCount).toBe(4);
    });

    it('refuses an unknown order, a cursor of another order and a cursor it did not make', async () => {
      await expect(
        store.listApprovalPage({ orderBy: 'cost' as ApprovalOrderBy }),
      ).rejects.toThrow(
        new InputError(
          "orderBy must be one of requestedAt, team, service, monthlyCost; got 'cost'",
        ),
      );
      await expect(
        store.listApprovalPage({ order: 'up' as SortOrder }),
      ).rejects.toThrow(
        new InputError("order must be one of asc, desc; got 'up'"),
      );
      const byTeam = await store.listApprovalPage({
        orderBy: 'team',
        order: 'asc',
        limit: 2,
      });
      await expect(
        store.listApprovalPage({
          orderBy: 'team',
          order: 'desc',
          cursor: byTeam.nextCursor,
        }),
      ).rejects.toThrow(
        'cursor is the nextCursor of a page sorted by team asc, not by team desc',
      );
      const forged = Buffer.from(
        JSON.stringify(['monthlyCost', 'asc', 'lots', rows[0].id]),
      ).toString('base64url');
      for (const cursor of [forged, 'not-a-cursor']) {
        await expect(
          store.listApprovalPage({ orderBy: 'monthlyCost', cursor }),
        ).rejects.toThrow(/^cursor must be the nextCursor of a previous page/);
      }
    });

    it('pages the audit trail oldest first as well as newest first', async () => {
      const newest = await store.listAuditEvents({ limit: 500 });
      const ids = newest.items.map(e => Number(e.id));
      expect(ids).toEqual([...ids].sort((a, b) => b - a));
      const oldest: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.listAuditEvents({
          order: 'asc',
          limit: 7,
          cursor,
        });
        expect(page.totalCount).toBe(newest.totalCount);
        oldest.push(...page.items.map(e => e.id));
        cursor = page.nextCursor;
      } while (cursor);
      expect(oldest).toEqual(newest.items.map(e => e.id).reverse());
      // Each order's cursors are its own.
      const newestPage = await store.listAuditEvents({ limit: 2 });
      const oldestPage = await store.listAuditEvents({
        order: 'asc',
        limit: 2,
      });
      expect(oldestPage.nextCursor).toBe(`asc.${oldest[1]}`);
      await expect(
        store.listAuditEvents({ order: 'asc', cursor: newestPage.nextCursor }),
      ).rejects.toThrow(
        'cursor is the nextCursor of a page read newest first, not oldest first',
      );
      await expect(
        store.listAuditEvents({ cursor: oldestPage.nextCursor }),
      ).rejects.toThrow(
        'cursor is the nextCursor of a page read oldest first, not newest first',
      );
      await expect(
        store.listAuditEvents({ order: 'sideways' as SortOrder }),
      ).rejects.toThrow("order must be one of asc, desc; got 'sideways'");
    });

    // Last: it changes the queue.
    it('keeps its place when requests come and go between pages', async () => {
      const first = await store.listApprovalPage({
        state: 'pending',
        orderBy: 'monthlyCost',
        order: 'desc',
        limit: 3,
      });
      const want = expected(rows, 'monthlyCost', 'desc');
      expect(first.items.map(a => names.get(a.serviceId))).toEqual(
        want.slice(0, 3),
      );
      // A dearer request arrives (it sorts onto the first page) and one of the next page is decided.
      const dearer = await store.createServiceWithReservation(
        overQuota('dearer', 'ml', 95_000_000),
      );
      const decided = rows.find(r => r.name === want[3])!;
      await store.decideApproval({
        id: decided.id,
        decision: 'reject',
        actor: ADMIN,
      });
      const second = await store.listApprovalPage({
        state: 'pending',
        orderBy: 'monthlyCost',
        order: 'desc',
        limit: 3,
        cursor: first.nextCursor,
      });
      // Neither a repeat of the first page nor a skip: the page after the first's last item.
      expect(second.items.map(a => names.get(a.serviceId))).toEqual(
        want.slice(4, 7),
      );
      expect(second.items.map(a => a.id)).not.toContain(dearer.approval!.id);
      expect(second.totalCount).toBe(REQUESTS.length);
    });
  },
);
