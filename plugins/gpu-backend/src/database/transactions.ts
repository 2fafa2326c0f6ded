import { Knex } from 'knex';

/** PostgreSQL error codes after which a transaction can simply run again. */
const RETRYABLE_PG_CODES = new Set([
  '40001', // serialization_failure
  '40P01', // deadlock_detected
]);

/** Whether an error aborted a transaction that is safe to retry as a whole. */
export function isRetryableTransactionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && RETRYABLE_PG_CODES.has(code);
}

/**
 * Whether an error is a violation of the named unique index. PostgreSQL names the
 * constraint; SQLite only lists the columns (`UNIQUE constraint failed: t.a, t.b`).
 */
export function isUniqueViolation(
  error: unknown,
  index: { name: string; table: string; columns: string[] },
): boolean {
  const e = error as
    | { code?: unknown; constraint?: unknown; message?: unknown }
    | undefined;
  if (e?.code === '23505') {
    return e.constraint === index.name;
  }
  if (
    typeof e?.code === 'string' &&
    e.code.startsWith('SQLITE_CONSTRAINT') &&
    typeof e.message === 'string'
  ) {
    const columns = index.columns.map(c => `${index.table}.${c}`).join(', ');
    return e.message.includes(`UNIQUE constraint failed: ${columns}`);
  }
  return false;
}

/** Whether the knex client talks to PostgreSQL (where row locks are needed). */
export function isPostgres(db: Knex): boolean {
  return db.client.config.client === 'pg' || db.client.dialect === 'postgresql';
}
