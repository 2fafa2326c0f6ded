/*
 * lockLedgerAndPool takes the team's quota row lock and then the pool's advisory lock in one statement on PostgreSQL:
 * the same order as lockLedger followed by lockPool, so writers still never wait on each other in opposite orders.
 */
import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { Knex } from 'knex';
import { storePlatform } from './__testUtils__/storePlatform';
import { DatabaseGpuStore } from './DatabaseGpuStore';
import { lockLedgerAndPool } from './ledger';
import { POOL_LOCK_SQL, poolLockKey } from './poolLock';

jest.setTimeout(60_000);

const databases = TestDatabases.create({ ids: ['POSTGRES_15'] });
const ADMIN = 'user:default/platform-admin';

describe.each(databases.eachSupportedId())('lockLedgerAndPool on %p', id => {
  let knex: Knex;

  beforeAll(async () => {
    knex = await databases.init(id);
    const store = await DatabaseGpuStore.create({
      database: mockServices.database({ knex }),
      platform: storePlatform,
    });
    await store.putQuota({
      team: 'search',
      quota: { pools: { a100: 2 }, monthlyBudgetMicros: 10 ** 12 },
      actor: ADMIN,
    });
  });

  it('holds the team row while it waits for the pool, and reads the allowance', async () => {
    const holdsPool = await knex.transaction();
    await holdsPool.raw(`select ${POOL_LOCK_SQL}`, [poolLockKey('a100')]);

    const locking = knex.transaction(tx =>
      lockLedgerAndPool(tx, 'search', 'a100'),
    );
    // While it waits for the pool, the team's row is already locked: another writer cannot take it.
    expect(await untilTeamRowLocked('search')).toBe(true);
    let settled = false;
    locking.finally(() => {
      settled = true;
    });
    await new Promise(resolve => setTimeout(resolve, 100));
    expect(settled).toBe(false);

    await holdsPool.commit();
    await expect(locking).resolves.toEqual({
      team: 'search',
      pool: 'a100',
      nominalGpuUnits: 2 * 5040,
      monthlyBudgetMicros: 10 ** 12,
    });
  });

  it('locks the pool for a team without a quota row', async () => {
    await knex.transaction(async tx => {
      expect(await lockLedgerAndPool(tx, 'nobody', 'a100')).toEqual({
        team: 'nobody',
        pool: 'a100',
      });
      const other = await knex.raw(
        'select pg_try_advisory_lock(hashtextextended(?, 0)) as taken',
        [poolLockKey('a100')],
      );
      expect(other.rows[0].taken).toBe(false);
    });
  });

  /** Whether another transaction finds the team's row locked, trying for up to 10 s. */
  async function untilTeamRowLocked(team: string): Promise<boolean> {
    for (let attempt = 0; attempt < 100; attempt++) {
      const code = await knex
        .transaction(async tx => {
          await tx.raw('set local lock_timeout = 50');
          await tx('team_quotas').where({ team }).forUpdate().first();
          return 'free';
        })
        .catch((error: { code?: string }) => error.code);
      if (code === '55P03') {
        return true;
      }
      await new Promise(resolve => setTimeout(resolve, 100));
    }
    return false;
  }
});
