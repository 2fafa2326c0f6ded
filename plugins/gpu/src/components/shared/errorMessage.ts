import { ResponseError } from '@backstage/errors';

/**
 * What to tell the user about a failed call: the backend's own message (e.g. "Unknown pool(s) x") when the error
 * came from a response, with its status; otherwise the error's message.
 */
export function errorMessage(error: unknown): string {
  if (
    error instanceof ResponseError ||
    (error as Error)?.name === 'ResponseError'
  ) {
    const response = error as ResponseError;
    const cause = response.cause?.message;
    return cause ? `${cause} (HTTP ${response.statusCode})` : response.message;
  }
  return error instanceof Error ? error.message : String(error);
}

/** Whether a call failed because the backend does not know the thing asked for. */
export function isNotFound(error: unknown): boolean {
  return (error as ResponseError | undefined)?.statusCode === 404;
}
