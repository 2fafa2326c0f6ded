/**
 * What to tell the user about a failed call: the backend's own message (a `ResponseError` carries it as its cause,
 * e.g. "maxModelLen 200000 exceeds the context of llama-3.1-8b"), else the error's message.
 */
export function errorMessage(error: unknown): string {
  const { message, cause } = error as { message?: string; cause?: unknown };
  const causeMessage = (cause as { message?: unknown } | undefined)?.message;
  if (typeof causeMessage === 'string' && causeMessage) {
    return causeMessage;
  }
  return message || String(error);
}
