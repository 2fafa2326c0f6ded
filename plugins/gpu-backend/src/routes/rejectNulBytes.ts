import { InputError } from '@backstage/errors';
import express from 'express';

const NUL = '\u0000';

/** Where the first NUL character of a parsed value is (`request.name`, `pools["a"]`, `[2]`), if it has one. */
function nulAt(value: unknown, root: string): string | undefined {
  const pending: Array<[unknown, string]> = [[value, root]];
  while (pending.length > 0) {
    const [current, path] = pending.pop()!;
    if (typeof current === 'string') {
      if (current.includes(NUL)) return path;
    } else if (Array.isArray(current)) {
      current.forEach((item, i) => pending.push([item, `${path}[${i}]`]));
    } else if (current !== null && typeof current === 'object') {
      for (const [key, item] of Object.entries(current)) {
        if (key.includes(NUL)) return `a key of ${path || 'the body'}`;
        pending.push([item, path ? `${path}.${key}` : key]);
      }
    }
  }
  return undefined;
}

/**
 * Refuses a request whose path, query or JSON body carries a NUL character (400 naming where). No field of the API
 * means one, PostgreSQL cannot store one in text, and SQLite would cut a string at it; refused here, every route
 * answers the same on both databases.
 */
export function rejectNulBytes(): express.RequestHandler {
  return (req, _res, next) => {
    if (/%00/.test(req.path) || req.path.includes(NUL)) {
      next(new InputError('The path must not contain a NUL character (%00)'));
      return;
    }
    const inQuery = nulAt(req.query, '');
    if (inQuery !== undefined) {
      next(
        new InputError(
          `Query parameter ${inQuery} must not contain a NUL character (%00)`,
        ),
      );
      return;
    }
    const inBody = nulAt(req.body, '');
    if (inBody !== undefined) {
      next(
        new InputError(
          `${
            inBody ? `Body field ${inBody}` : 'The body'
          } must not contain a NUL character (\\u0000)`,
        ),
      );
      return;
    }
    next();
  };
}
