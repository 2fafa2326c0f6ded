/*
 * backToBack sends statements on a transaction's connection one behind the other: each runs in its own snapshot, so
 * a read sent behind a lock sees what the lock's last holder committed while it waited.
 */
import { TestDatabases } from '@backstage/backend-test-utils';
import { Knex } from 'knex';
import { backToBack } from './backToBack';
import { POOL_LOCK_SQL, poolLockKey } from './poolLock';

jest.setTimeout(60_000);

const databases = TestDatabases.create({ ids: ['POSTGRES_15'] });

describe.each(databases.eachSupportedId())('backToBack on %p', id => {
  let knex: Knex;

  beforeAll(async () => {
    knex = await databases.init(id);
    await knex.schema.createTable('holds', table => {
      table.string('pool').notNullable();
      table.integer('units').notNullable();
    });
  });

  beforeEach(async () => {
    await knex('holds').delete();
  });

  const lock = (tx: Knex.Transaction) =>
    tx.raw(`select ${POOL_LOCK_SQL} as locked`, [poolLockKey('a100')]);
  const held = (db: Knex) =>
    db('holds').where({ pool: 'a100' }).sum({ units: 'units' });

  it('reads behind a lock what its holder committed while the read waited', async () => {
    const holder = await knex.transaction();
    await lock(holder);
    await holder('holds').insert({ pool: 'a100', units: 7 });

    const behind = knex.transaction(tx => backToBack(tx, [lock(tx), held(tx)]));
    // The same lock and read in one statement: its snapshot is taken before the lock is granted.
    const inOne = knex.transaction(async tx => {
      const { rows } = await tx.raw(
        `select (select sum(units) from holds where pool = 'a100') as units, ${POOL_LOCK_SQL} as locked`,
        [poolLockKey('a100')],
      );
      return rows;
    });
    await new Promise(resolve => setTimeout(resolve, 200));
    await holder.commit();

    const [locked, sums] = await behind;
    expect(locked).toEqual([{ locked: '' }]);
    expect(Number(sums[0].units)).toBe(7);
    expect((await inOne)[0].units).toBeNull();
  });

  it('answers each statement in order, announces them as knex does, and prepares them once per connection unless told not to', async () => {
    const announced: string[] = [];
    const onQuery = (query: { sql: string }) => announced.push(query.sql);
    knex.on('query', onQuery);
    try {
      await knex('holds').insert([
        { pool: 'a100', units: 3 },
        { pool: 'h100', units: 5 },
      ]);
      const prepared = await knex.transaction(async tx => {
        const pools = tx('holds').orderBy('pool').select('pool');
        const [first, second] = await backToBack(tx, [
          held(tx),
          { unprepared: pools },
        ]);
        expect(Number(first[0].units)).toBe(3);
        expect(second).toEqual([{ pool: 'a100' }, { pool: 'h100' }]);
        await backToBack(tx, [held(tx)]);
        const { rows } = await tx.raw(
          `select name from pg_prepared_statements where name like 'gpu\\_%'`,
        );
        return rows.map((row: { name: string }) => row.name);
      });
      // The sum twice, prepared once; the unprepared read not at all.
      expect(prepared).toHaveLength(1);
      expect(announced.filter(sql => sql.includes('"holds"'))).toHaveLength(4);
    } finally {
      knex.off('query', onQuery);
    }
  });

  it('throws the first failure, which aborts the statements after it and the transaction', async () => {
    const failing = knex.transaction(tx =>
      backToBack(tx, [tx.raw('select 1 / 0'), held(tx)]),
    );
    await expect(failing).rejects.toMatchObject({ code: '22012' });
    await expect(held(knex)).resolves.toEqual([{ units: null }]);
  });
});
