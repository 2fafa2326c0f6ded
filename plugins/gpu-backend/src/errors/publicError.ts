import { LoggerService } from '@backstage/backend-plugin-api';
import {
  InputError,
  isError,
  serializeError,
  ServiceUnavailableError,
} from '@backstage/errors';
import {
  isDatabaseDataException,
  isDatabaseUnavailable,
} from './databaseErrors';
import {
  containsInternalAddress,
  withoutInternalAddresses,
} from './internalAddresses';

/** How long a caller should wait before trying again while the database is unavailable (`Retry-After`). */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** An error as a caller of the REST API or an action gets it, and how long to wait when it is worth trying again. */
export interface PublicError {
  error: Error;
  retryAfterSeconds?: number;
}

/** The HTTP status Backstage's error handler gives an error: its `statusCode`, else by its name, else 500. */
function statusOf(error: Error): number {
  const statusCode = (error as { statusCode?: unknown }).statusCode;
  if (typeof statusCode === 'number') return statusCode;
  switch (error.name) {
    case 'InputError':
      return 400;
    case 'AuthenticationError':
      return 401;
    case 'NotAllowedError':
      return 403;
    case 'NotFoundError':
      return 404;
    case 'ConflictError':
      return 409;
    case 'NotImplementedError':
      return 501;
    case 'ServiceUnavailableError':
      return 503;
    default:
      return 500;
  }
}

/** An error of the same name and status with only the message, without its internal addresses. */
function scrubbed(error: Error): Error {
  const copy = new Error(withoutInternalAddresses(error.message));
  copy.name = error.name;
  const statusCode = (error as { statusCode?: unknown }).statusCode;
  if (typeof statusCode === 'number') {
    Object.assign(copy, { statusCode });
  }
  return copy;
}

/**
 * What a caller sees of an error: the database being unavailable becomes a 503 to retry after
 * {@link DATABASE_RETRY_AFTER_SECONDS}; a value PostgreSQL refused (a data exception) a 400; any other error keeps
 * its name and status, without internal addresses (the URLs and IPs of API servers, Prometheus, the database) in its
 * message, and without its cause and driver fields, which Backstage's error body would otherwise serialise. What
 * is withheld is logged.
 */
export function toPublicError(
  raw: unknown,
  logger: LoggerService,
): PublicError {
  if (isDatabaseUnavailable(raw)) {
    logger.warn('The GPU database is unavailable', { error: String(raw) });
    return {
      error: new ServiceUnavailableError(
        `The GPU database is unavailable; try again in ${DATABASE_RETRY_AFTER_SECONDS} seconds`,
      ),
      retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS,
    };
  }
  if (isDatabaseDataException(raw)) {
    logger.warn('The GPU database refused a value of a request', {
      error: String(raw),
    });
    // knex prefixes the statement: keep the server's own words after it.
    const reason = String((raw as Error).message)
      .split(' - ')
      .pop();
    return {
      error: new InputError(
        `A value of the request cannot be stored: ${withoutInternalAddresses(
          reason,
        )}`,
      ),
    };
  }
  const error = isError(raw) ? (raw as Error) : new Error(String(raw));
  if (statusOf(error) < 500) {
    if (!containsInternalAddress(JSON.stringify(serializeError(error)))) {
      return { error };
    }
    logger.info('A refused gpu request named an internal address', {
      error: String(error),
    });
    return { error: scrubbed(error) };
  }
  logger.error('A gpu request failed', error);
  return { error: scrubbed(error) };
}
