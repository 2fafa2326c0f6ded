import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { Knex } from 'knex';
import { storePlatform } from './__testUtils__/storePlatform';
import { DatabaseGpuStore } from './DatabaseGpuStore';
import { CreateServiceInput, ListServicesFilter } from './types';

jest.setTimeout(60_000);

const databases = TestDatabases.create({ ids: ['POSTGRES_15', 'SQLITE_3'] });

const USER = 'user:default/alice';
const ADMIN = 'user:default/platform-admin';

function request(
  name: string,
  team: string,
  overrides: Partial<CreateServiceInput> = {},
): CreateServiceInput {
  return {
    name,
    team,
    namespace: team,
    entityRef: `component:default/${name}`,
    environment: 'dev',
    tier: 'dedicated',
    pool: 'a100',
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
    placement: { tier: 'dedicated', pool: 'a100', gpusPerReplica: 1 },
    mode: 'dry-run',
    reservation: { gpuEquivalents: 1, monthlyCostMicros: 1_000_000 },
    policy: { whenOverQuota: 'require-approval' },
    actor: USER,
    ...overrides,
  };
}

describe.each(databases.eachSupportedId())(
  'DatabaseGpuStore.listServicesWithReservations on %p',
  id => {
    let knex: Knex;
    let store: DatabaseGpuStore;

    beforeAll(async () => {
      knex = await databases.init(id);
      store = await DatabaseGpuStore.create({
        database: mockServices.database({ knex }),
        platform: storePlatform,
      });
      for (const team of ['ml', 'search']) {
        await store.putQuota({
          team,
          quota: { pools: { a100: 6 }, monthlyBudgetMicros: 100_000_000_000 },
          actor: ADMIN,
        });
      }
      // Every shape of ledger: held, pending approval, approved, rejected, changed (two reservations), deleted.
      const held = await store.createServiceWithReservation(
        request('held', 'ml'),
      );
      await store.createServiceWithReservation(
        request('waiting', 'ml', {
          reservation: { gpuEquivalents: 10, monthlyCostMicros: 1 },
        }),
      );
      const approved = await store.createServiceWithReservation(
        request('approved', 'search', {
          policy: {
            whenOverQuota: 'reject',
            approvalReasons: [{ code: 'policy', message: 'needs a look' }],
          },
        }),
      );
      await store.decideApproval({
        id: approved.approval!.id,
        decision: 'approve',
        actor: ADMIN,
      });
      const rejected = await store.createServiceWithReservation(
        request('rejected', 'search', {
          reservation: { gpuEquivalents: 20, monthlyCostMicros: 1 },
        }),
      );
      await store.decideApproval({
        id: rejected.approval!.id,
        decision: 'reject',
        actor: ADMIN,
      });
      await store.replaceReservation({
        serviceId: held.service.id,
        change: {
          tier: 'dedicated',
          pool: 'a100',
          request: { ...held.service.request, replicas: 2 },
          placement: held.service.placement,
        },
        reservation: { gpuEquivalents: 2, monthlyCostMicros: 2_000_000 },
        policy: { whenOverQuota: 'reject' },
        actor: USER,
      });
      const gone = await store.createServiceWithReservation(
        request('gone', 'ml'),
      );
      await store.updateServiceStatus({
        id: gone.service.id,
        status: 'deleted',
        reason: 'Deleted',
        releaseReservation: true,
        actor: USER,
      });
    });

    /** What the list view built one service at a time (two queries per service) would read. */
    async function perService(filter?: ListServicesFilter) {
      const services = await store.listServices(filter);
      return Promise.all(
        services.map(async service => ({
          service,
          reservations: await store.listReservations(service.id),
          approvals: await store.listApprovals({ serviceId: service.id }),
        })),
      );
    }

    it.each<[string, ListServicesFilter | undefined]>([
      ['no filter', undefined],
      ['a team', { team: 'ml' }],
      ['statuses', { status: ['pending-approval', 'rejected'] }],
      ['an entity', { entityRef: 'component:default/held' }],
      ['nothing matching', { team: 'nobody' }],
    ])(
      'returns what the per-service reads return, for %s',
      async (_, filter) => {
        const batched = await store.listServicesWithReservations(filter);
        expect(batched).toEqual(await perService(filter));
      },
    );

    it('lists every shape of ledger', async () => {
      const listings = await store.listServicesWithReservations();
      expect(listings).toHaveLength(5);
      const held = listings.find(l => l.service.name === 'held')!;
      expect(held.reservations.map(r => r.state)).toEqual(['held', 'released']);
      const approved = listings.find(l => l.service.name === 'approved')!;
      expect(approved.approvals.map(a => a.state)).toEqual(['approved']);
    });

    it('reads with a constant number of queries, however many services match', async () => {
      const queries: string[] = [];
      const count = (q: { sql: string }) => queries.push(q.sql);
      knex.on('query', count);
      try {
        await store.listServicesWithReservations({ team: 'ml' });
        const forFew = queries.length;
        queries.length = 0;
        await store.listServicesWithReservations();
        expect(queries).toHaveLength(forFew);
        // Services, reservations, approvals, pending changes.
        expect(forFew).toBe(4);
      } finally {
        knex.off('query', count);
      }
    });
  },
);
