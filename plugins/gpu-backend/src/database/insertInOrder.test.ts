import { TestDatabases } from '@backstage/backend-test-utils';
import { Knex } from 'knex';
import { insertInOrder } from './insertInOrder';
import { isPostgres } from './transactions';

jest.setTimeout(60_000);

const databases = TestDatabases.create({ ids: ['POSTGRES_15', 'SQLITE_3'] });

describe.each(databases.eachSupportedId())('insertInOrder on %p', id => {
  let knex: Knex;

  beforeAll(async () => {
    knex = await databases.init(id);
    await knex.schema.createTable('parents', table => {
      table.string('id').primary();
    });
    await knex.schema.createTable('children', table => {
      table.string('id').primary();
      table.string('parent_id').notNullable().references('parents.id');
    });
    await knex.schema.createTable('events', table => {
      table.increments('id');
      table.string('what').notNullable();
    });
  });

  afterEach(async () => {
    await knex('events').delete();
    await knex('children').delete();
    await knex('parents').delete();
  });

  it('inserts a parent, its child and events in order, in one statement on PostgreSQL', async () => {
    const statements: string[] = [];
    const onQuery = (query: { sql: string }) => statements.push(query.sql);
    knex.on('query', onQuery);
    await knex.transaction(tx =>
      insertInOrder(tx, [
        { table: 'parents', rows: [{ id: 'p1' }] },
        { table: 'children', rows: [{ id: 'c1', parent_id: 'p1' }] },
        { table: 'events', rows: [{ what: 'first' }, { what: 'second' }] },
      ]),
    );
    knex.off('query', onQuery);
    const inserts = statements.filter(sql => /insert/i.test(sql));
    expect(inserts).toHaveLength(isPostgres(knex) ? 1 : 3);
    expect(await knex('children').select('id', 'parent_id')).toEqual([
      { id: 'c1', parent_id: 'p1' },
    ]);
    expect(
      (await knex('events').orderBy('id')).map(event => event.what),
    ).toEqual(['first', 'second']);
  });

  it('leaves nothing when a row breaks a constraint', async () => {
    await expect(
      knex.transaction(tx =>
        insertInOrder(tx, [
          { table: 'parents', rows: [{ id: 'p1' }] },
          {
            table: 'children',
            rows: [
              { id: 'c1', parent_id: 'p1' },
              { id: 'c1', parent_id: 'p1' },
            ],
          },
          { table: 'events', rows: [{ what: 'first' }] },
        ]),
      ),
      // Not toThrow: better-sqlite3's errors may come from another realm's Error.
    ).rejects.toMatchObject({
      message: expect.stringMatching(
        /UNIQUE constraint failed|duplicate key value/,
      ),
    });
    expect(await knex('parents')).toEqual([]);
    expect(await knex('children')).toEqual([]);
    expect(await knex('events')).toEqual([]);
  });

  it('skips tables with no rows, and does nothing for none', async () => {
    await knex.transaction(async tx => {
      await insertInOrder(tx, []);
      await insertInOrder(tx, [
        { table: 'parents', rows: [] },
        { table: 'events', rows: [{ what: 'only' }] },
      ]);
    });
    expect((await knex('events')).map(event => event.what)).toEqual(['only']);
  });
});
