import { CustomErrorBase, InputError } from '@backstage/errors';
import express from 'express';

/** Largest JSON request body of the gpu API. */
export const MAX_BODY_BYTES = 256 * 1024;

/** A request body larger than the API takes: HTTP 413 (Backstage's error handler answers an error's `statusCode`). */
export class PayloadTooLargeError extends CustomErrorBase {
  name = 'PayloadTooLargeError' as const;
  statusCode = 413 as const;
}

/** An error of body-parser: its `type` (`entity.too.large`, `entity.parse.failed`, ...) and HTTP status. */
interface BodyParserError {
  type?: unknown;
  status?: unknown;
  message?: unknown;
}

/** A body error with only its message and status (body-parser's carry the raw body, which is not echoed back). */
class RequestBodyError extends CustomErrorBase {
  constructor(message: string, readonly statusCode: number) {
    super(message);
  }
}

/**
 * Parses JSON request bodies of at most {@link MAX_BODY_BYTES}: a larger one is a 413 that says the limit (without
 * reading it all), malformed JSON a 400 `InputError`, other body errors (an unsupported charset: 415) keep
 * body-parser's status.
 */
export function jsonBody(): express.RequestHandler[] {
  return [
    express.json({ limit: MAX_BODY_BYTES }),
    // An error handler for the parser only: it runs when express.json failed.
    ((error: BodyParserError, _req, _res, next) => {
      if (typeof error?.type !== 'string') {
        next(error);
      } else if (error.type === 'entity.too.large') {
        next(
          new PayloadTooLargeError(
            `The request body is larger than the API takes: at most ${
              MAX_BODY_BYTES / 1024
            } KiB of JSON`,
          ),
        );
      } else if (error.type === 'entity.parse.failed') {
        next(
          new InputError(`The request body is not valid JSON: ${error.message}`),
        );
      } else {
        next(
          new RequestBodyError(
            String(error.message),
            typeof error.status === 'number' ? error.status : 400,
          ),
        );
      }
    }) as express.ErrorRequestHandler as unknown as express.RequestHandler,
  ];
}
