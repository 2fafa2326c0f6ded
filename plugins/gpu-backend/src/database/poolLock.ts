/** PostgreSQL's transaction-level advisory lock of a pool, its key bound as the one parameter. */
export const POOL_LOCK_SQL = 'pg_advisory_xact_lock(hashtextextended(?, 0))';

/** The key of a pool's advisory lock. */
export function poolLockKey(pool: string): string {
  return `backstage-gpu:pool:${pool}`;
}
