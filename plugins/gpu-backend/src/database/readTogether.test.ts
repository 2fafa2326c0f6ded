import { TestDatabases } from '@backstage/backend-test-utils';
import { Knex } from 'knex';
import { readTogether } from './readTogether';
import { isPostgres } from './transactions';
import { readInteger } from './units';

jest.setTimeout(60_000);

const databases = TestDatabases.create({ ids: ['POSTGRES_15', 'SQLITE_3'] });

describe.each(databases.eachSupportedId())('readTogether on %p', id => {
  let knex: Knex;

  beforeAll(async () => {
    knex = await databases.init(id);
    await knex.schema.createTable('holdings', table => {
      table.string('team').notNullable();
      table.string('pool').notNullable();
      table.bigInteger('units').notNullable();
      table.string('profile').nullable();
    });
    await knex('holdings').insert([
      { team: 'search', pool: 'a100', units: 5040, profile: null },
      { team: 'search', pool: 'a100', units: 2520, profile: '3g.40gb' },
      { team: 'search', pool: 'h100', units: 10080, profile: null },
      { team: 'recsys', pool: 'a100', units: 720, profile: '1g.10gb' },
    ]);
  });

  it('answers each read under its name, in one statement on PostgreSQL', async () => {
    const statements: string[] = [];
    const onQuery = (query: { sql: string }) => statements.push(query.sql);
    knex.on('query', onQuery);
    const answers = await readTogether<{
      sums: { pool: string; units: unknown };
      profiles: { pool: string; profile: string | null };
      none: { pool: string };
      skipped: { pool: string };
    }>(knex, {
      sums: knex('holdings')
        .where({ team: 'search' })
        .select('pool')
        .sum({ units: 'units' })
        .groupBy('pool')
        .orderBy('pool'),
      // Named bindings inside a raw, as the month's read has.
      profiles: knex
        .from(
          knex.raw('(select * from holdings where team = :team) as held', {
            team: 'recsys',
          }),
        )
        .select('pool', 'profile'),
      none: knex('holdings').where({ team: 'nobody' }).select('pool'),
      // Not sent: the statements counted are the other three reads'.
      skipped: undefined,
    });
    knex.off('query', onQuery);
    expect(statements).toHaveLength(isPostgres(knex) ? 1 : 3);
    expect(answers.sums.map(row => [row.pool, readInteger(row.units)])).toEqual(
      [
        ['a100', 7560],
        ['h100', 10080],
      ],
    );
    expect(answers.profiles).toEqual([{ pool: 'a100', profile: '1g.10gb' }]);
    expect(answers.none).toEqual([]);
    expect(answers.skipped).toEqual([]);
  });
});
