import { z } from 'zod';

/**
 * A strict zod object for config: an unknown key is an error (so typos are caught) whose message lists the keys that
 * are allowed.
 */
export function strict<T extends z.ZodRawShape>(shape: T) {
  const allowed = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: issue =>
      issue.code === 'unrecognized_keys'
        ? `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys
            .map(k => `"${k}"`)
            .join(', ')}; allowed keys are ${allowed}`
        : undefined,
  });
}
