import {
  containsInternalAddress,
  withoutInternalAddresses,
} from './internalAddresses';

/**
 * Keys whose strings are messages for people: why a service has its status (`statusReason`, a cluster's `reason`
 * or `message`), why figures are missing (`reason`, `warnings`), what failed (`error`). Clusters, Prometheus and
 * drivers put their addresses in them (`connect ECONNREFUSED 127.0.0.1:17802`); other fields (an endpoint, a
 * rendered manifest) are data and stay as they are.
 */
const MESSAGE_KEYS = new Set([
  'reason',
  'reasons',
  'statusReason',
  'message',
  'error',
  'detail',
  'warnings',
]);

function scrub(value: unknown, inMessage: boolean, depth: number): unknown {
  if (typeof value === 'string') {
    return inMessage && containsInternalAddress(value)
      ? withoutInternalAddresses(value)
      : value;
  }
  if (value === null || typeof value !== 'object' || depth > 64) return value;
  if (Array.isArray(value)) {
    let items: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      // Numbers, booleans and (outside messages) strings cannot change: the common case, kept cheap.
      if (
        typeof item !== 'object' &&
        !(inMessage && typeof item === 'string')
      ) {
        continue;
      }
      const next = scrub(item, inMessage, depth + 1);
      if (next !== item) {
        items ??= value.slice();
        items[i] = next;
      }
    }
    return items ?? value;
  }
  let copy: Record<string, unknown> | undefined;
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (!Object.prototype.hasOwnProperty.call(record, key)) continue;
    const item = record[key];
    const message = inMessage || MESSAGE_KEYS.has(key);
    if (typeof item !== 'object' && !(message && typeof item === 'string')) {
      continue;
    }
    const next = scrub(item, message, depth + 1);
    if (next !== item) {
      copy ??= { ...record };
      copy[key] = next;
    }
  }
  return copy ?? value;
}

/**
 * `value` with internal addresses taken out of its messages (the strings under {@link MESSAGE_KEYS}, at any depth);
 * the same object when none has one, a changed copy otherwise (the value itself is never modified: it may be
 * cached).
 */
export function messagesWithoutAddresses<T>(value: T): T {
  return scrub(value, false, 0) as T;
}
