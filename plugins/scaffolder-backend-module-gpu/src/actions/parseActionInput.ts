import { InputError } from '@backstage/errors';
import { z as zod } from 'zod/v3';

/** An action's input schema in the key-to-callback form `createTemplateAction` takes. */
export type InputFields = Record<string, (z: typeof zod) => zod.ZodTypeAny>;

/** The parsed value of {@link InputFields}. */
export type ParsedInput<T extends InputFields> = zod.infer<
  zod.ZodObject<{ [K in keyof T]: ReturnType<T[K]> }>
>;

/**
 * Validates an action's input against its own schema (the scaffolder does too before it runs a step; this keeps
 * direct calls honest and applies defaults), failing with an `InputError` that names each bad field.
 */
export function parseActionInput<T extends InputFields>(
  actionId: string,
  fields: T,
  input: unknown,
): ParsedInput<T> {
  const schema = zod.object(
    Object.fromEntries(
      Object.entries(fields).map(([key, field]) => [key, field(zod)]),
    ),
  );
  const result = schema.safeParse(input);
  if (!result.success) {
    const issues = result.error.issues
      .map(issue => `${issue.path.join('.') || 'input'}: ${issue.message}`)
      .join('; ');
    throw new InputError(`Invalid input to ${actionId}: ${issues}`);
  }
  return result.data as ParsedInput<T>;
}
