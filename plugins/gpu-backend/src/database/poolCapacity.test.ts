import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { ConflictError } from '@backstage/errors';
import {
  OVER_POOL_CAPACITY,
  PoolCapacityPolicy,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { Knex } from 'knex';
import { storePlatform } from './__testUtils__/storePlatform';
import { DatabaseGpuStore } from './DatabaseGpuStore';
import { CreateServiceInput } from './types';

jest.setTimeout(120_000);

const databases = TestDatabases.create({ ids: ['POSTGRES_15', 'SQLITE_3'] });

if (
  process.env.GPU_REQUIRE_POSTGRES === '1' &&
  !databases.supports('POSTGRES_15')
) {
  throw new Error(
    'GPU_REQUIRE_POSTGRES=1 but PostgreSQL is unavailable: set BACKSTAGE_TEST_DATABASE_POSTGRES15_CONNECTION_STRING',
  );
}

const ADMIN = 'user:default/platform-admin';
const APPROVER = 'user:default/approver';
/** A month of one H100 of the `h100` pool (1 node x 8 GPUs at $55.04 an hour). */
const GPU_MONTH_MICROS = 5_022_400_000;

/** A request of team `team` for `gpus` whole H100s of the `h100` pool (8 GPUs in all). */
function request(
  team: string,
  name: string,
  gpus = 1,
  overrides: Partial<CreateServiceInput> = {},
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
      replicas: gpus,
      environment: 'dev',
      tier: 'dedicated',
      pool: 'h100',
    },
    placement: { tier: 'dedicated', pool: 'h100', gpusPerReplica: 1 },
    mode: 'dry-run',
    reservation: {
      gpuEquivalents: gpus,
      monthlyCostMicros: gpus * GPU_MONTH_MICROS,
    },
    policy: { whenOverQuota: 'reject' },
    actor: `user:default/${team}-dev`,
    ...overrides,
  };
}

describe.each(databases.eachSupportedId())(
  'pool capacity at create and change on %p',
  id => {
    let knex: Knex;
    const stores = {} as Record<PoolCapacityPolicy, DatabaseGpuStore>;

    beforeAll(async () => {
      knex = await databases.init(id);
      for (const policy of ['approval', 'refuse'] as const) {
        stores[policy] = await DatabaseGpuStore.create({
          database: mockServices.database({ knex }),
          platform: storePlatform,
          whenOverPoolCapacity: policy,
        });
      }
    });

    async function giveQuota(teams: string[], gpus: number) {
      for (const team of teams) {
        await stores.approval.putQuota({
          team,
          quota: {
            pools: { h100: gpus },
            monthlyBudgetMicros: 100 * GPU_MONTH_MICROS,
          },
          actor: ADMIN,
        });
      }
    }

    async function held(): Promise<number> {
      const rows = await knex('reservations')
        .where({ pool: 'h100', state: 'held' })
        .select('gpu_units');
      return rows.reduce((sum, r) => sum + Number(r.gpu_units), 0) / 5040;
    }

    beforeEach(async () => {
      for (const table of [
        'audit_events',
        'approvals',
        'reservations',
        'services',
        'pool_quotas',
        'team_quotas',
      ]) {
        await knex(table).delete();
      }
      // Two teams whose quotas (6 + 6) oversubscribe the pool's 8 GPUs; `nlp` holds 6 of them.
      await giveQuota(['ml', 'nlp'], 6);
      await stores.approval.createServiceWithReservation(
        request('nlp', 'big', 6),
      );
    });

    it('sends a create within quota but beyond the free capacity to approval, with a typed reason', async () => {
      const result = await stores.approval.createServiceWithReservation(
        request('ml', 'wants-4', 4),
      );

      expect(result.service.status).toBe('pending-approval');
      expect(result.reservation.state).toBe('pending');
      expect(result.approval!.reasons).toEqual([
        {
          code: OVER_POOL_CAPACITY,
          message:
            "Over the free capacity of pool 'h100': it has 8 GPUs (1 node x 8 GPUs), 6 GPU-equivalents are held " +
            'by all teams and this request needs 4. An approver can approve it once capacity is free ' +
            '(gpu.admission.whenOverPoolCapacity: approval)',
        },
      ]);
      expect(await held()).toBe(6);

      // The approver cannot grant it while the pool is full, and can once capacity is free.
      await expect(
        stores.approval.decideApproval({
          id: result.approval!.id,
          decision: 'approve',
          actor: APPROVER,
        }),
      ).rejects.toThrow(/^Approving would exceed the physical capacity/);
      const nlp = await knex('services').where({ name: 'big' }).first();
      await stores.approval.releaseReservation({
        serviceId: nlp.id,
        actor: ADMIN,
      });
      const decided = await stores.approval.decideApproval({
        id: result.approval!.id,
        decision: 'approve',
        actor: APPROVER,
      });
      expect(decided.reservation.state).toBe('held');
      expect(await held()).toBe(4);
    });

    it('refuses a create within quota but beyond the free capacity with 409, reserving nothing', async () => {
      const error = await stores.refuse
        .createServiceWithReservation(request('ml', 'wants-4', 4))
        .catch(e => e);

      expect(error).toBeInstanceOf(ConflictError);
      expect(error.message).toBe(
        "Over the free capacity of pool 'h100': it has 8 GPUs (1 node x 8 GPUs), 6 GPU-equivalents are held by " +
          "all teams and this request needs 4. The platform refuses requests beyond a pool's free capacity and " +
          'reserves nothing for them (gpu.admission.whenOverPoolCapacity: refuse): free capacity, ask for less, ' +
          'or choose another pool',
      );
      expect(await knex('services').where({ team: 'ml' })).toEqual([]);
      expect(await knex('reservations').where({ team: 'ml' })).toEqual([]);
      expect(await knex('approvals')).toEqual([]);
      // What still fits is admitted.
      const fits = await stores.refuse.createServiceWithReservation(
        request('ml', 'wants-2', 2),
      );
      expect(fits.service.status).toBe('approved');
      expect(await held()).toBe(8);
    });

    /** Creates a 1-GPU service of `ml` (6 + 1 held) and a function that changes it to `gpus` GPUs. */
    async function growable(store: DatabaseGpuStore) {
      const small = await store.createServiceWithReservation(
        request('ml', 'grows', 1),
      );
      return (gpus: number, expectedUpdatedAt: string) =>
        store.replaceReservation({
          serviceId: small.service.id,
          change: {
            request: { ...small.service.request, replicas: gpus },
            placement: small.service.placement,
            pool: 'h100',
            tier: 'dedicated',
          },
          reservation: {
            gpuEquivalents: gpus,
            monthlyCostMicros: gpus * GPU_MONTH_MICROS,
          },
          policy: { whenOverQuota: 'reject' },
          expectedUpdatedAt: expectedUpdatedAt || small.service.updatedAt,
          actor: 'user:default/ml-dev',
        });
    }

    it('weighs a change against the pool without the reservation it gives back, and sends one beyond it to approval', async () => {
      const change = await growable(stores.approval);
      // Growing to 2 fits (the 1 it holds is given back): 8 of 8 held.
      const grown = await change(2, '');
      expect(grown.outcome).toBe('replaced');
      expect(await held()).toBe(8);

      const over = await change(3, grown.service.updatedAt);
      expect(over.outcome).toBe('pending-approval');
      expect(
        over.outcome === 'pending-approval' &&
          over.approval.reasons.map(r => r.code),
      ).toEqual([OVER_POOL_CAPACITY]);
      expect(await held()).toBe(8);
    });

    it('refuses a change beyond the pool with 409 under the refuse policy, leaving what is held', async () => {
      const change = await growable(stores.refuse);
      const grown = await change(2, '');
      expect(grown.outcome).toBe('replaced');

      await expect(change(3, grown.service.updatedAt)).rejects.toThrow(
        ConflictError,
      );
      expect(await held()).toBe(8);
      expect(await knex('reservations').where({ state: 'pending' })).toEqual(
        [],
      );
    });

    it.each([
      // The 42 that do not fit wait for approval (each team has one request waiting, under the cap of 20).
      ['approval', 42, 0],
      ['refuse', 0, 42],
    ] as const)(
      'never admits more than the pool holds: 50 teams within quota race for its 8 GPUs (%s)',
      async (policy, pending, refused) => {
        await knex('reservations').delete();
        await knex('approvals').delete();
        await knex('services').delete();
        const teams = Array.from({ length: 50 }, (_, i) => `team-${i}`);
        // Each team's quota (1 GPU) fits its request: the pool's capacity is the only limit.
        await giveQuota(teams, 1);

        const results = await Promise.allSettled(
          teams.map(team =>
            stores[policy].createServiceWithReservation(
              request(team, 'svc', 1),
            ),
          ),
        );

        const counts = { approved: 0, 'pending-approval': 0, refused: 0 };
        const refusals = new Set<string>();
        for (const r of results) {
          if (r.status === 'rejected') {
            refusals.add(
              `${r.reason instanceof ConflictError}: ${String(
                r.reason.message,
              ).slice(0, 37)}`,
            );
            counts.refused += 1;
          } else {
            counts[
              r.value.service.status as 'approved' | 'pending-approval'
            ] += 1;
          }
        }
        expect([...refusals]).toEqual(
          refused ? ["true: Over the free capacity of pool 'h100'"] : [],
        );
        expect(counts).toEqual({
          approved: 8,
          'pending-approval': pending,
          refused,
        });
        expect(await held()).toBe(8);
        expect(
          await knex('reservations').where({ state: 'pending' }),
        ).toHaveLength(pending);
      },
    );
  },
);
