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
  reads: Reads<Shapes>,
): Promise<Answers<Shapes>> {
  if (isPostgres(db)) {
    const together = readTogetherStatement(db, reads);
    if (!together) return answersOf(reads, new Map());
    const [row] = await together.statement;
    return together.answers(row);
  }
  const sent = sentOf(reads);
  const answers = await Promise.all(
    sent.map(([, read]) => read as unknown as Promise<object[]>),
  );
  return answersOf(
    reads,
    new Map(sent.map(([name], index) => [name, answers[index]])),
  );
}

/** The reads {@link readTogether} takes, by name (undefined: not sent, answered with no rows). */
export type Reads<Shapes extends Record<string, object>> = {
  [Name in keyof Shapes]: Knex.QueryBuilder | undefined;
};

/** Each read's rows under its name. */
export type Answers<Shapes extends Record<string, object>> = {
  [Name in keyof Shapes]: Shapes[Name][];
};

/**
 * PostgreSQL: the one statement {@link readTogether} sends (none when every read is left out), and how the row it
 * answers is read, for a caller that sends it itself (`backToBack`).
 */
export function readTogetherStatement<Shapes extends Record<string, object>>(
  db: Knex | Knex.Transaction,
  reads: Reads<Shapes>,
):
  | {
      statement: Knex.QueryBuilder;
      answers(row: Record<string, unknown> | undefined): Answers<Shapes>;
    }
  | undefined {
  const sent = sentOf(reads);
  if (sent.length === 0) return undefined;
  return {
    statement: db.select(
      Object.fromEntries(
        sent.map(([name, read]) => [
          name,
          db.raw('(select json_agg(answer) from (?) as answer)', [read]),
        ]),
      ),
    ),
    answers: row =>
      answersOf(
        reads,
        new Map(
          sent.map(([name]) => [name, (row?.[name] as object[] | null) ?? []]),
        ),
      ),
  };
}

function sentOf(
  reads: Record<string, Knex.QueryBuilder | undefined>,
): [string, Knex.QueryBuilder][] {
  return Object.entries(reads).filter(
    (read): read is [string, Knex.QueryBuilder] => read[1] !== undefined,
  );
}

function answersOf<Shapes extends Record<string, object>>(
  reads: Reads<Shapes>,
  answered: Map<string, object[]>,
): Answers<Shapes> {
  return Object.fromEntries(
    Object.keys(reads).map(name => [name, answered.get(name) ?? []]),
  ) as Answers<Shapes>;
}
