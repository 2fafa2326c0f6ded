import { Knex } from 'knex';
import { isPostgres } from './transactions';

/**
 * Runs several reads, each answering rows, and answers each one's rows under its name: on PostgreSQL in one
 * statement (each read's rows aggregated to JSON), elsewhere side by side. Under a lock every statement is a round
 * trip through a busy event loop, and the reads see the same snapshot either way only on PostgreSQL, where each
 * statement otherwise takes its own (the caller holds the locks that keep them consistent).
 *
 * Only for reads whose columns survive JSON: numbers, strings, booleans and nulls, not timestamps.
 */
export async function readTogether<Names extends string>(
  db: Knex | Knex.Transaction,
  reads: Record<Names, Knex.QueryBuilder>,
): Promise<Record<Names, Rows>> {
  const names = Object.keys(reads) as Names[];
  let answers: Rows[];
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
      names.map(name => reads[name] as unknown as Promise<Rows>),
    );
  }
  return Object.fromEntries(
    names.map((name, index) => [name, answers[index]]),
  ) as Record<Names, Rows>;
}

/** Rows of a read, by column name. */
export type Rows = Array<Record<string, unknown>>;
