import { Knex } from 'knex';
import { isPostgres } from './transactions';

/**
 * Runs several reads, each answering rows, and answers each one's rows under its name (none for a read left
 * undefined, which is not sent): on PostgreSQL in one statement (each read's rows aggregated to JSON), elsewhere
 * side by side. Under a lock every statement is a round trip through a busy event loop. On PostgreSQL the reads then
 * also share one snapshot; the caller's locks keep them consistent either way.
 *
 * Columns come back as JSON has them on PostgreSQL: timestamps as ISO 8601 strings (`toMs` reads them), numbers
 * as numbers whatever their SQL type.
 */
export async function readTogether<Shapes extends Record<string, object>>(
  db: Knex | Knex.Transaction,
  reads: { [Name in keyof Shapes]: Knex.QueryBuilder | undefined },
): Promise<{ [Name in keyof Shapes]: Shapes[Name][] }> {
  const sent = Object.entries(reads).filter(
    (read): read is [string, Knex.QueryBuilder] => read[1] !== undefined,
  );
  let answers: object[][];
  if (sent.length === 0) {
    answers = [];
  } else if (isPostgres(db)) {
    const [row] = await db.select(
      Object.fromEntries(
        sent.map(([name, read]) => [
          name,
          db.raw('(select json_agg(answer) from (?) as answer)', [read]),
        ]),
      ),
    );
    answers = sent.map(([name]) => row[name] ?? []);
  } else {
    answers = await Promise.all(
      sent.map(([, read]) => read as unknown as Promise<object[]>),
    );
  }
  const answered = new Map(sent.map(([name], index) => [name, answers[index]]));
  return Object.fromEntries(
    Object.keys(reads).map(name => [name, answered.get(name) ?? []]),
  ) as { [Name in keyof Shapes]: Shapes[Name][] };
}
