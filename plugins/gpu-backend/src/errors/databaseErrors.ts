/**
 * How the database drivers (pg through knex, better-sqlite3) say that the database cannot be used right now, as
 * opposed to a bad statement: the request may succeed when tried again in a few seconds (HTTP 503).
 */

/** SQLSTATEs of a PostgreSQL server that is restarting, shutting down, out of connections or unreachable. */
const UNAVAILABLE_SQLSTATES = new Set([
  '57P01', // admin_shutdown: terminating connection due to administrator command
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: the database system is starting up / shutting down
  '53300', // too_many_connections
  '08000', // connection_exception
  '08001', // sqlclient_unable_to_establish_sqlconnection
  '08003', // connection_does_not_exist
  '08004', // sqlserver_rejected_establishment_of_sqlconnection
  '08006', // connection_failure
]);

/** Socket errors of a connection to the database (pg raises them as they are, with `syscall`). */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** SQLite result codes of a database another connection holds or that cannot be opened. */
const SQLITE_UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|CANTOPEN|IOERR)/;

/** Messages of pg and knex for a connection lost, never made, or a pool that gave none in time. */
const UNAVAILABLE_MESSAGE =
  /Connection terminated|Client has encountered a connection error|connection is (?:closed|not open)|Timeout acquiring a connection|Unable to acquire a connection|is not currently accepting connections|The database connection is not open/i;

interface DriverError {
  name?: unknown;
  code?: unknown;
  syscall?: unknown;
  message?: unknown;
}

/** Whether an error is the database being unavailable (restarting, unreachable, out of connections, locked). */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const e = error as DriverError;
  if (e.name === 'KnexTimeoutError') return true;
  const code = typeof e.code === 'string' ? e.code : '';
  if (UNAVAILABLE_SQLSTATES.has(code) || SQLITE_UNAVAILABLE.test(code)) {
    return true;
  }
  // A socket error of the driver itself (not one of an HTTP client, which names itself, e.g. FetchError).
  if (NETWORK_CODES.has(code) && typeof e.syscall === 'string') {
    return e.name === 'Error';
  }
  // pg's own errors are named `error`; the messages are the drivers' and the pool's, no HTTP client's.
  return typeof e.message === 'string' && UNAVAILABLE_MESSAGE.test(e.message);
}

/**
 * Whether PostgreSQL refused a value of the request rather than failed: SQLSTATE class 22 (data exception: a NUL
 * byte in text, a number out of range for its column, a malformed value). Input the API checks should never get
 * this far; if some does, it is still the caller's (HTTP 400), not a fault of the backend.
 */
export function isDatabaseDataException(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { code } = error as DriverError;
  return typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code);
}
