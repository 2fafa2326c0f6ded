import { findModel } from '../platform/lookups';
import { Platform } from '../platform/types';
import { ServiceRequest } from '../service/types';
import { kvCacheBytesPerToken } from '../sizing/estimateMemory';
import type { FitResult } from '../sizing/fitSlices';
import { estimateDecodeThroughput } from './estimateDecodeThroughput';
import { sliceBandwidthShare } from './sliceBandwidthShare';

/**
 * The bandwidth estimate of the output tokens/s one replica of `request` sustains on the slice of `fit`
 * (`estimateDecodeThroughput` with the slice's bandwidth share, the fit's weights and KV budget, and the request's
 * `concurrentSequences` when it states them, else its `concurrency`, lowered to what the KV budget holds). Undefined for a GPU model without a known bandwidth or a MIG profile its GPU does not list.
 *
 * @throws GpuDomainError `UNKNOWN_MODEL` when the platform does not have the request's model.
 * @public
 */
export function estimateSliceThroughput(
  platform: Platform,
  request: Pick<
    ServiceRequest,
    'model' | 'dtype' | 'concurrency' | 'concurrentSequences' | 'maxModelLen'
  >,
  fit: Pick<FitResult, 'slice' | 'memory' | 'kvCacheBudgetBytes'>,
): number | undefined {
  const bandwidthShare = sliceBandwidthShare(platform, fit.slice);
  if (bandwidthShare === undefined) return undefined;
  return estimateDecodeThroughput({
    gpuModel: fit.slice.gpuModel,
    bandwidthShare,
    weightsBytes: fit.memory.weightsBytes,
    kvBytesPerToken: kvCacheBytesPerToken(
      findModel(platform, request.model),
      request.dtype,
    ),
    concurrency: request.concurrentSequences ?? request.concurrency,
    maxModelLen: request.maxModelLen,
    kvBudgetBytes: fit.kvCacheBudgetBytes,
  });
}
