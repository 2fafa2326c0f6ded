import { Knex } from 'knex';
import { backToBack } from './backToBack';
import { isPostgres } from './transactions';

/** Rows to insert into one table. */
export interface TableInsert {
  table: string;
  rows: readonly object[];
}

/**
 * Inserts rows into several tables, in one statement on PostgreSQL (each but the last insert a data-modifying
 * `WITH`; foreign keys are checked at the end of the statement; a prepared statement, see `backToBack`) and one insert
 * after another on SQLite. A create holds its team's and pool's locks while it writes, and each statement is a round
 * trip through a busy event loop.
 */
export async function insertInOrder(
  tx: Knex.Transaction,
  inserts: readonly TableInsert[],
): Promise<void> {
  const written = inserts.filter(insert => insert.rows.length > 0);
  if (written.length === 0) {
    return;
  }
  if (!isPostgres(tx)) {
    for (const insert of written) {
      await tx(insert.table).insert(insert.rows);
    }
    return;
  }
  const last = written[written.length - 1];
  let statement: Knex.QueryBuilder = tx.queryBuilder();
  written.slice(0, -1).forEach((insert, index) => {
    statement = statement.with(
      `inserted_${index}`,
      tx(insert.table).insert(insert.rows),
    );
  });
  await backToBack(tx, [statement.insert(last.rows).into(last.table)]);
}
