import { InputError } from '@backstage/errors';

/**
 * What kind of domain rule a {@link GpuDomainError} reports.
 *
 * @public
 */
export type GpuDomainErrorCode =
  | 'UNKNOWN_MODEL'
  | 'UNKNOWN_POOL'
  | 'UNKNOWN_TIER'
  | 'UNKNOWN_TEAM'
  | 'UNKNOWN_ENVIRONMENT'
  | 'TIER_FORBIDDEN'
  | 'NO_FIT'
  | 'INVALID_NAME'
  | 'INVALID_ENTITY_REF'
  | 'OUT_OF_RANGE'
  | 'INVALID_CONFIG';

/**
 * Bad input to the GPU domain: an unknown model, pool, tier, team or environment, a tier the environment forbids, a
 * model that fits nowhere, a name that is not DNS-1123, an invalid entity ref, a number out of range, or an invalid
 * `gpu` config section.
 *
 * It is an `InputError` (its `name` stays `InputError`), so Backstage backends answer it with HTTP 400. The message
 * says what is wrong and what is allowed; `allowed` lists the accepted values when there is a closed set.
 *
 * @public
 */
export class GpuDomainError extends InputError {
  readonly code: GpuDomainErrorCode;
  readonly allowed?: string[];

  constructor(
    code: GpuDomainErrorCode,
    message: string,
    options?: { allowed?: string[]; cause?: unknown },
  ) {
    super(message, options?.cause);
    this.code = code;
    this.allowed = options?.allowed;
  }
}

/**
 * Whether a value is a {@link GpuDomainError}, also across package copies (checks the `code` and `name`).
 *
 * @public
 */
export function isGpuDomainError(value: unknown): value is GpuDomainError {
  return (
    value instanceof GpuDomainError ||
    (value instanceof Error &&
      value.name === 'InputError' &&
      typeof (value as Partial<GpuDomainError>).code === 'string')
  );
}
