import { AuditEventView } from '@gpu-platform/backstage-plugin-gpu-common';

function show(value: unknown): string {
  if (value === undefined) return '-';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/**
 * The fields an audit event changed, as `field: before -> after` (top-level fields only; nested objects are shown
 * as JSON). A creation lists the new values' keys count instead of every field.
 */
export function describeAuditChange(event: AuditEventView): string {
  const { before, after } = event;
  if (!before && !after) return '';
  if (!before) return `created (${Object.keys(after!).length} fields)`;
  if (!after) return 'removed';
  const keys = [
    ...new Set([...Object.keys(before), ...Object.keys(after)]),
  ].sort();
  const changed = keys.filter(
    k => JSON.stringify(before[k]) !== JSON.stringify(after[k]),
  );
  if (changed.length === 0) return 'no change';
  return changed
    .map(k => `${k}: ${show(before[k])} -> ${show(after[k])}`)
    .join('; ');
}
