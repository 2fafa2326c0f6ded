import { LoggerService } from '@backstage/backend-plugin-api';
import express from 'express';
import { toPublicError } from '../errors/publicError';

/**
 * The gpu API's errors as callers get them (see `toPublicError`): 503 with `Retry-After` while the database is
 * unavailable, 400 for a value the database refused, and messages without internal addresses. Backstage's error
 * handler, after this one, writes the body.
 */
export function publicErrors(logger: LoggerService): express.ErrorRequestHandler {
  return (raw, _req, res, next) => {
    const { error, retryAfterSeconds } = toPublicError(raw, logger);
    if (retryAfterSeconds !== undefined && !res.headersSent) {
      res.setHeader('Retry-After', String(retryAfterSeconds));
    }
    next(error);
  };
}
