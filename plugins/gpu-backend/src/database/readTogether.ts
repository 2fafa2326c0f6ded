import { Knex } from 'knex';
import { isPostgres } from './transactions';

/**
 * Runs several reads, each answering rows, and answers each one's rows under its name: on PostgreSQL in one
 * statement (each read's rows aggregated to JSON), elsewhere side by side. Under a lock every statement is a round
 * trip through a busy event loop. On PostgreSQL the reads then also share one snapshot; the caller's locks keep them
 * consistent either way.
 *
 * Columns come back as JSON has them on PostgreSQL: timestamps as ISO 8601 strings (`toMs` reads them), numbers
 * as numbers whatever their SQL type.
 */
export async function readTogether<Shapes extends Record<string, object>>(
  db: Knex | Knex.Transaction,
  reads: { [Name in keyof Shapes]: Knex.QueryBuilder },
): Promise<{ [Name in keyof Shapes]: Shapes[Name][] }> {
  const names = Object.keys(reads) as Array<keyof Shapes & string>;
  let answers: object[][];
  if (isPostgres(db)) {
    const [row] = await db.select(
      Object.fromEntries(
        names.map(name => [
          name,
          db.raw('(select json_agg(answer) from (?) as answer)', [reads[name]]),
        ]),
      ),
    );
    answers = names.map(name => row[name] ?? []);
  } else {
    answers = await Promise.all(
      names.map(name => reads[name] as unknown as Promise<object[]>),
    );
  }
  return Object.fromEntries(
    names.map((name, index) => [name, answers[index]]),
  ) as { [Name in keyof Shapes]: Shapes[Name][] };
}
