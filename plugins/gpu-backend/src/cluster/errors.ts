import { describeRef } from './objectRef';
import { ObjectRef } from './types';

/** Why a Kubernetes request failed. */
export type KubernetesFailure =
  /** The API server answered with an error status. */
  | 'http'
  /** No answer within the request timeout. */
  | 'timeout'
  /** The connection failed. */
  | 'network'
  /** The request could not be built (e.g. an unknown kind). */
  | 'client';

/** A failed Kubernetes request, independent of the client library. */
export class KubernetesRequestError extends Error {
  name = 'KubernetesRequestError' as const;

  constructor(
    message: string,
    readonly failure: KubernetesFailure,
    readonly statusCode?: number,
    /** Seconds from a `Retry-After` header. */
    readonly retryAfterSeconds?: number,
    cause?: unknown,
  ) {
    super(message, { cause });
  }

  /** Whether trying the same request again may succeed. */
  get retryable(): boolean {
    if (this.failure === 'timeout' || this.failure === 'network') {
      return true;
    }
    const status = this.statusCode ?? 0;
    return status === 409 || status === 429 || status >= 500;
  }
}

/** Applying (or deleting, or reading) one object failed for good. */
export class KubernetesApplyError extends Error {
  name = 'KubernetesApplyError' as const;

  constructor(
    readonly cluster: string,
    readonly object: ObjectRef,
    readonly attempts: number,
    /** The cluster's own message. */
    readonly clusterMessage: string,
    readonly statusCode?: number,
    cause?: unknown,
  ) {
    super(
      `${describeRef(
        object,
      )} on cluster '${cluster}' failed after ${attempts} attempt${
        attempts === 1 ? '' : 's'
      }: ${statusCode ? `${statusCode} ` : ''}${clusterMessage}`,
      { cause },
    );
  }
}
