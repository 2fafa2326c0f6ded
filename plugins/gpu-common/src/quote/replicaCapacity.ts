import { estimateSliceThroughput } from '../cost/estimateSliceThroughput';
import { Platform } from '../platform/types';
import { ServiceRequest } from '../service/types';
import type { FitResult } from '../sizing/fitSlices';
import {
  findMeasuredCapacity,
  MeasuredCapacity,
  MeasuredCapacitySource,
  sliceShapeOf,
} from './measuredCapacity';

/**
 * Output tokens/s one replica sustains on a slice, and where the figure comes from.
 *
 * @public
 */
export interface ReplicaCapacity {
  tokensPerSecond: number;
  basis: 'estimated' | 'measured';
  /** The running service a measured figure was read from; absent when the request stated it. */
  measuredBy?: MeasuredCapacitySource;
}

/**
 * The capacity of one replica of `request` on the slice of `fit`, first found of: the request's
 * `measuredTokensPerSecond` (what the user measured), the measured capacity of a running service of the same model
 * and slice shape (`findMeasuredCapacity`), the bandwidth estimate (`estimateSliceThroughput`). Undefined when none
 * is known (a GPU without a known bandwidth and nothing measured).
 *
 * @public
 */
export function replicaCapacity(
  platform: Platform,
  request: ServiceRequest,
  fit: FitResult,
  measured: readonly MeasuredCapacity[] = [],
): ReplicaCapacity | undefined {
  if (request.measuredTokensPerSecond !== undefined) {
    return {
      tokensPerSecond: request.measuredTokensPerSecond,
      basis: 'measured',
    };
  }
  const found =
    measured.length > 0
      ? findMeasuredCapacity(
          measured,
          sliceShapeOf(platform, request, fit.slice),
        )
      : undefined;
  if (found) {
    return {
      tokensPerSecond: found.tokensPerSecond,
      basis: 'measured',
      measuredBy: found.source,
    };
  }
  const estimate = estimateSliceThroughput(platform, request, fit);
  return estimate === undefined
    ? undefined
    : { tokensPerSecond: estimate, basis: 'estimated' };
}
