import { createHash } from 'node:crypto';
import { Knex } from 'knex';

/** A statement knex compiles: a query builder or a raw. */
export type Statement = Knex.QueryBuilder | Knex.Raw;

/**
 * A statement sent without preparing it: one that answers every column of a table (`select *`). A prepared one fails
 * ("cached plan must not change result type") once another replica's migration changes the table's columns.
 */
export interface Unprepared {
  unprepared: Statement;
}

/** What the statements are sent on: node-postgres's client, the transaction's connection. */
interface PgConnection {
  query(config: {
    name?: string;
    text: string;
    values: unknown[];
  }): Promise<{ rows: Record<string, unknown>[] }>;
}

/** The ids knex marks its connections with, and names in its query events. */
interface KnexIds {
  __knexUid?: string;
  __knexTxId?: string;
}

/**
 * Sends statements on a PostgreSQL transaction's connection back to back and answers each one's rows. The database
 * runs them one after another, each in a snapshot taken as it starts, so a read sent behind a lock sees what the
 * lock's last holder committed. node-postgres sends the next as soon as the one before answers: no turn of this
 * process's event loop (a busy one under load) comes between a lock being granted and the reads made under it.
 *
 * Each but an {@link Unprepared} one is a named prepared statement of the connection (named by its text), parsed
 * once per connection and, once PostgreSQL settles on a generic plan, not planned again: the reads a create makes
 * under its locks took a millisecond of the server's parsing and planning every time.
 *
 * The statements must not depend on each other's answers. When one fails, the transaction is aborted and the ones
 * after it fail too: the first failure is thrown.
 */
export async function backToBack(
  tx: Knex.Transaction,
  statements: readonly (Statement | Unprepared)[],
): Promise<Record<string, unknown>[][]> {
  const connection = (await tx.client.acquireConnection()) as PgConnection &
    KnexIds;
  // Queued in this order within one tick: node-postgres runs its queue first in, first out.
  const answers = await Promise.allSettled(
    statements.map(sent => {
      const prepared = !('unprepared' in sent);
      const compiled = (prepared ? sent : sent.unprepared).toSQL();
      // Announced as knex announces the queries it sends, for whoever listens (statement counts, tracing).
      tx.client.emit('query', {
        ...compiled,
        __knexUid: connection.__knexUid,
        __knexTxId: connection.__knexTxId,
      });
      const { sql, bindings } = compiled.toNative();
      return connection.query({
        ...(prepared ? { name: statementName(sql) } : {}),
        text: sql,
        values: [...bindings],
      });
    }),
  );
  const rows: Record<string, unknown>[][] = [];
  for (const answer of answers) {
    if (answer.status === 'rejected') throw answer.reason;
    rows.push(answer.value.rows);
  }
  return rows;
}

/** The prepared statement's name: the same for the same text (PostgreSQL keeps at most 63 bytes of it). */
function statementName(sql: string): string {
  return `gpu_${createHash('sha256').update(sql).digest('hex').slice(0, 32)}`;
}
