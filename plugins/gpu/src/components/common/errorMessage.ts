import { ResponseError } from '@backstage/errors';

/** How `errorMessage` words a failed call. */
export interface ErrorMessageOptions {
  /** Append the HTTP status of a backend response, e.g. " (HTTP 400)". Default true. */
  withStatus?: boolean;
}

/**
 * What to tell the user about a failed call: the backend's own message (e.g. "Unknown pool(s) x") when the error
 * came from a response, with its status unless `withStatus` is false; otherwise the error's message.
 */
export function errorMessage(
  error: unknown,
  { withStatus = true }: ErrorMessageOptions = {},
): string {
  if (
    error instanceof ResponseError ||
    (error as Error)?.name === 'ResponseError'
  ) {
    const response = error as ResponseError;
    const cause = response.cause?.message;
    if (!cause) {
      return response.message;
    }
    return withStatus ? `${cause} (HTTP ${response.statusCode})` : cause;
  }
  return error instanceof Error ? error.message : String(error);
}

/** Whether a call failed because the backend does not know the thing asked for. */
export function isNotFound(error: unknown): boolean {
  return (error as ResponseError | undefined)?.statusCode === 404;
}
