import { createHash } from 'node:crypto';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const HASH_LENGTH = 8;

/** Lowercase, replace anything that is not `[a-z0-9-]` with `-`, collapse and trim dashes. */
function sanitize(value: string): string {
  return value
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/**
 * A DNS-1123 label of at most `maxLength` characters built from `parts` joined with `-`.
 *
 * @remarks
 * When the joined parts are already a valid label that fits, they are returned unchanged. Otherwise the name is
 * sanitised, truncated and suffixed with `-` and 8 hex characters of the SHA-256 of the original parts, so two
 * different inputs never collapse onto the same name and the same input always gives the same name.
 *
 * @public
 */
export function stableName(parts: string[], maxLength = 63): string {
  const joined = parts.filter(part => part.length > 0).join('-');
  if (joined.length <= maxLength && DNS1123_LABEL.test(joined)) {
    return joined;
  }
  const hash = createHash('sha256')
    .update(parts.join('\u0000'))
    .digest('hex')
    .slice(0, HASH_LENGTH);
  const room = maxLength - HASH_LENGTH - 1;
  const head = sanitize(joined).slice(0, room).replace(/-+$/, '');
  return head ? `${head}-${hash}` : `x${hash}`;
}
