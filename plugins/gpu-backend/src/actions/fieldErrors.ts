import { ActionsRegistryService } from '@backstage/backend-plugin-api/alpha';
import { InputError } from '@backstage/errors';
import { AnyZodObject, z as zod, ZodIssue } from 'zod/v3';

const article = (type: string) => (/^[aeiou]/.test(type) ? 'an' : 'a');

function fieldOf(path: (string | number)[]): string {
  if (path.length === 0) return 'input';
  return path.reduce<string>((field, key) => {
    if (typeof key === 'number') return `${field}[${key}]`;
    return field ? `${field}.${key}` : key;
  }, '');
}

/** One line per wrong field: `replicas: expected a number, got string`, `name: required, expected a string`. */
export function describeIssues(issues: ZodIssue[]): string {
  return issues
    .map(issue => {
      const field = fieldOf(issue.path);
      if (issue.code === 'invalid_enum_value') {
        return `${field}: expected one of ${issue.options.join(
          ', ',
        )}, got ${JSON.stringify(issue.received)}`;
      }
      if (issue.code !== 'invalid_type') return `${field}: ${issue.message}`;
      const expected = `${article(issue.expected)} ${issue.expected}`;
      return issue.received === 'undefined'
        ? `${field}: required, expected ${expected}`
        : `${field}: expected ${expected}, got ${issue.received}`;
    })
    .join('; ');
}

/**
 * The input schema of an action, failing with an `InputError` that names each wrong field. The Actions Registry
 * parses an action's input before calling it and answers a failed parse with `Invalid input to action "gpu:..."`
 * followed by zod's issues as JSON; an error thrown while parsing reaches the caller as it is, so the schema parses
 * itself in a preprocess step and throws. The registry's JSON Schema of it is the object's own (zod-to-json-schema
 * describes a preprocess step by its schema), and the action receives the object's parsed value.
 */
export function fieldChecked<T extends AnyZodObject>(
  input: (z: typeof zod) => T,
): (z: typeof zod) => T {
  return z => {
    const schema = input(z);
    return z.preprocess(raw => {
      const parsed = schema.safeParse(raw);
      if (!parsed.success) {
        throw new InputError(describeIssues(parsed.error.issues));
      }
      return parsed.data;
    }, schema) as unknown as T;
  };
}

/** The registry, with every action's input schema {@link fieldChecked}. */
export function withFieldErrors(
  registry: ActionsRegistryService,
): ActionsRegistryService {
  return {
    register: options =>
      registry.register({
        ...options,
        schema: {
          ...options.schema,
          input: fieldChecked(options.schema.input),
        },
      }),
  };
}
