import { InputError } from '@backstage/errors';

/** Default and largest page of the list routes. */
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

/** One page of a list, newest or oldest first by the list's order; `nextCursor` is present when more match. */
export interface Page<T> {
  items: T[];
  nextCursor?: string;
}

/** A {@link Page} that says how many items match on all pages. */
export interface CountedPage<T> extends Page<T> {
  totalCount: number;
}

/** Where a page ends: the sort time and id of its last item. */
export interface Keyset {
  at: Date;
  id: string;
}

/** An opaque cursor for the item after which the next page starts. */
export function encodeCursor(keyset: Keyset): string {
  return Buffer.from(
    JSON.stringify([keyset.at.toISOString(), keyset.id]),
    'utf8',
  ).toString('base64url');
}

/** The error for a cursor no page of this list made. */
export function invalidCursor(cursor: string): InputError {
  return new InputError(
    `cursor must be the nextCursor of a previous page; got '${cursor.slice(
      0,
      100,
    )}'`,
  );
}

/**
 * The JSON array a cursor carries (base64url), checked to have `length` items of which those at `strings` are
 * strings; anything else is {@link invalidCursor}.
 */
export function decodeCursorArray(
  cursor: string,
  length: number,
  strings: number[],
): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor(cursor);
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== length ||
    strings.some(i => typeof parsed[i] !== 'string') ||
    // No id or key of a page has one; PostgreSQL cannot compare text with one.
    parsed.some(item => typeof item === 'string' && item.includes('\u0000'))
  ) {
    throw invalidCursor(cursor);
  }
  return parsed;
}

/**
 * The time a cursor carries (an ISO 8601 string); {@link invalidCursor} for anything else, or a time outside the
 * years a page can end in (PostgreSQL refuses timestamps past 294276, which JavaScript dates reach).
 */
export function cursorTime(value: unknown, cursor: string): Date {
  const at = typeof value === 'string' ? new Date(value) : undefined;
  const year = at?.getUTCFullYear() ?? NaN;
  if (!at || Number.isNaN(at.getTime()) || year < 1970 || year > 9999) {
    throw invalidCursor(cursor);
  }
  return at;
}

/** Reads a cursor made by {@link encodeCursor}; anything else is an `InputError`. */
export function decodeCursor(cursor: string): Keyset {
  const [iso, id] = decodeCursorArray(cursor, 2, [0, 1]) as [string, string];
  return { at: cursorTime(iso, cursor), id };
}

/** The page size asked for, checked. */
export function pageSize(limit: number | undefined): number {
  const size = limit ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) {
    throw new InputError(
      `limit must be a whole number from 1 to ${MAX_PAGE_SIZE}; got ${limit}`,
    );
  }
  return size;
}

/** A LIKE pattern matching `text` anywhere, with LIKE's wildcards in it escaped (escape character `\`). */
export function containsPattern(text: string): string {
  return `%${text
    .toLocaleLowerCase('en-US')
    .replace(/[\\%_]/g, c => `\\${c}`)}%`;
}
