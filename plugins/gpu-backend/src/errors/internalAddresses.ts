/**
 * Addresses of the backend's own infrastructure as error messages of HTTP clients and drivers spell them: URLs
 * (`https://127.0.0.1:17802/apis/...`), IPv4 and bracketed IPv6 literals with or without a port, `localhost`, and
 * `host:port` pairs. They say where the backend's API servers, Prometheus and database live; users get messages
 * without them, the logs keep them.
 */
const INTERNAL_ADDRESS =
  /\b[a-z][a-z0-9+.-]*:\/\/[^\s'"`<>()]+|\[[0-9a-f:.]*:[0-9a-f:.]*\](?::\d+)?|(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?(?![\w.])|\blocalhost(?::\d+)?\b|(?<![\w.-])[a-z0-9-]+(?:\.[a-z0-9-]+)+:\d{2,5}\b/gi;

/** What an address becomes in a message a user sees. */
export const WITHHELD_ADDRESS = '(address withheld)';

/** Whether a text names an internal address (see {@link withoutInternalAddresses}). */
export function containsInternalAddress(text: string): boolean {
  INTERNAL_ADDRESS.lastIndex = 0;
  return INTERNAL_ADDRESS.test(text);
}

/** The text with every internal address replaced by {@link WITHHELD_ADDRESS}. */
export function withoutInternalAddresses(text: string): string;
export function withoutInternalAddresses(
  text: string | undefined,
): string | undefined;
export function withoutInternalAddresses(
  text: string | undefined,
): string | undefined {
  return text?.replace(INTERNAL_ADDRESS, WITHHELD_ADDRESS);
}
