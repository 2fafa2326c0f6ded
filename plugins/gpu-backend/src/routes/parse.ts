import { InputError } from '@backstage/errors';
import { z } from 'zod';

/** Parses a request part with a schema; an `InputError` (400) naming each wrong field otherwise. */
export function parse<T>(
  schema: z.ZodType<T>,
  value: unknown,
  what: string,
): T {
  const result = schema.safeParse(value ?? {});
  if (!result.success) {
    const issues = result.error.issues
      .map(i => `${i.path.length ? i.path.join('.') : what}: ${i.message}`)
      .join('; ');
    throw new InputError(`Invalid ${what}: ${issues}`);
  }
  return result.data;
}

/** A page size and cursor from the query string. */
export const pageQuery = {
  limit: z.coerce.number().int().min(1).max(200).optional(),
  cursor: z.string().min(1).max(512).optional(),
};

/** A team name: a DNS-1123 label, like the team's namespace prefix. */
export const teamName = z
  .string()
  .regex(
    /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/,
    'a team name (DNS-1123 label)',
  );

/** A service id. */
export const serviceId = z.string().uuid('a service id (UUID)');
