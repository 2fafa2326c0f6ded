import { KubernetesRequestError } from './errors';
import { RetryOptions } from './types';

const DEFAULTS = {
  maxAttempts: 5,
  initialDelayMs: 200,
  maxDelayMs: 5_000,
};

/** Settled retry policy. */
export type RetryPolicy = Required<RetryOptions>;

/** Fills in the defaults of a retry policy and checks it. */
export function retryPolicy(options: RetryOptions = {}): RetryPolicy {
  const policy = {
    maxAttempts: options.maxAttempts ?? DEFAULTS.maxAttempts,
    initialDelayMs: options.initialDelayMs ?? DEFAULTS.initialDelayMs,
    maxDelayMs: options.maxDelayMs ?? DEFAULTS.maxDelayMs,
    sleep:
      options.sleep ??
      ((ms: number) => new Promise<void>(resolve => setTimeout(resolve, ms))),
  };
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1) {
    throw new Error(
      `retry.maxAttempts must be a whole number of at least 1; got ${policy.maxAttempts}`,
    );
  }
  return policy;
}

/** Delay before attempt `attempt + 1`: exponential, or the server's Retry-After, capped. */
export function backoffDelay(
  policy: RetryPolicy,
  attempt: number,
  error: KubernetesRequestError,
): number {
  const exponential = policy.initialDelayMs * 2 ** (attempt - 1);
  const requested =
    error.retryAfterSeconds !== undefined
      ? error.retryAfterSeconds * 1000
      : exponential;
  return Math.min(policy.maxDelayMs, requested);
}

/** The last failure of {@link withRetry} and how many attempts were made. */
export class RetryExhaustedError extends Error {
  constructor(
    readonly failure: KubernetesRequestError,
    readonly attempts: number,
  ) {
    super(failure.message);
  }
}

/**
 * Runs `request` until it succeeds, fails with a non-retryable error, or has run
 * `maxAttempts` times. Resolves with the value and the attempts it took; rejects with
 * the last error and the attempts made.
 */
export async function withRetry<T>(
  policy: RetryPolicy,
  request: () => Promise<T>,
): Promise<{ value: T; attempts: number }> {
  for (let attempt = 1; ; attempt++) {
    try {
      return { value: await request(), attempts: attempt };
    } catch (error) {
      const failure = asRequestError(error);
      if (!failure.retryable || attempt >= policy.maxAttempts) {
        throw new RetryExhaustedError(failure, attempt);
      }
      await policy.sleep(backoffDelay(policy, attempt, failure));
    }
  }
}

function asRequestError(error: unknown): KubernetesRequestError {
  if (error instanceof KubernetesRequestError) {
    return error;
  }
  return new KubernetesRequestError(
    error instanceof Error ? error.message : String(error),
    'client',
    undefined,
    undefined,
    error,
  );
}
