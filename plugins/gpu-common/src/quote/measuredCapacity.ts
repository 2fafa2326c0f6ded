import type { AutoscaledReplicasPolicy } from './autoscaledReplicas';
import type { PoolCapacityPolicy, PoolHeldUnits } from './poolCapacityFit';
import { defaultDtypeFor } from '../platform/checkpoints';
import { findModel } from '../platform/lookups';
import { Dtype, Platform, SharingTier } from '../platform/types';
import { ServiceRequest } from '../service/types';
import { Slice } from '../tiers/types';

/**
 * What a measured throughput holds for: the same model in the same dtype on the same shape of GPU capacity (GPU
 * model, tier, and the MIG profile, the GPUs per replica, or the 1/R share).
 *
 * @public
 */
export interface SliceShape {
  /** Key into `Platform.models`. */
  model: string;
  dtype: Dtype;
  gpuModel: string;
  tier: SharingTier;
  migProfile?: string;
  gpusPerReplica: number;
  /** GPU-equivalents per replica: 1/R on MPS and time-sliced pools. */
  gpuShare: number;
}

/**
 * Where a measured capacity came from: the service whose vLLM counters it was read from, over which window.
 *
 * @public
 */
export interface MeasuredCapacitySource {
  serviceId: string;
  /** Service name. */
  service: string;
  /** ISO 8601 start and end of the window measured. */
  windowStart: string;
  windowEnd: string;
}

/**
 * Sustained output tokens/s one replica of a running service generated when busy, for its slice shape.
 *
 * @public
 */
export interface MeasuredCapacity {
  shape: SliceShape;
  tokensPerSecond: number;
  source: MeasuredCapacitySource;
}

/**
 * The shape of a request's slice: its model, its dtype (the model's default when the request gives none) and the
 * slice's GPU model, tier, MIG profile, GPUs per replica and GPU share.
 *
 * @throws GpuDomainError `UNKNOWN_MODEL` when the platform does not have the request's model.
 * @public
 */
export function sliceShapeOf(
  platform: Platform,
  request: Pick<ServiceRequest, 'model' | 'dtype' | 'runtime'>,
  slice: Slice,
): SliceShape {
  return {
    model: request.model,
    dtype:
      request.dtype ??
      defaultDtypeFor(findModel(platform, request.model), request.runtime),
    gpuModel: slice.gpuModel,
    tier: slice.tier,
    ...(slice.migProfile ? { migProfile: slice.migProfile } : {}),
    gpusPerReplica: slice.gpusPerReplica,
    gpuShare: slice.gpuShare,
  };
}

/**
 * A string equal for equal shapes (the GPU share to 6 decimals), to key measured capacities by.
 *
 * @public
 */
export function sliceShapeKey(shape: SliceShape): string {
  return [
    shape.model,
    shape.dtype,
    shape.gpuModel,
    shape.tier,
    shape.migProfile ?? '',
    shape.gpusPerReplica,
    shape.gpuShare.toFixed(6),
  ].join('|');
}

/**
 * The measured capacity of a shape among `capacities`: the most recent window's, then the higher tokens/s. Undefined
 * when none has the shape.
 *
 * @public
 */
export function findMeasuredCapacity(
  capacities: readonly MeasuredCapacity[],
  shape: SliceShape,
): MeasuredCapacity | undefined {
  const key = sliceShapeKey(shape);
  let best: MeasuredCapacity | undefined;
  for (const capacity of capacities) {
    if (sliceShapeKey(capacity.shape) !== key) continue;
    if (
      !best ||
      capacity.source.windowEnd > best.source.windowEnd ||
      (capacity.source.windowEnd === best.source.windowEnd &&
        capacity.tokensPerSecond > best.tokensPerSecond)
    ) {
      best = capacity;
    }
  }
  return best;
}

/**
 * Optional inputs of a quote beyond the request and the team's usage.
 *
 * @public
 */
export interface QuoteOptions {
  /**
   * Sustained tokens/s measured on running services (the backend's `MeasuredCapacities`): an option whose model and
   * slice shape has one uses it instead of the estimate, labelled `measured` with `measuredBy`.
   */
  measuredCapacities?: readonly MeasuredCapacity[];
  /**
   * What every team holds on each pool and the platform's policy for a request beyond a pool's free capacity: each
   * option is weighed by `poolCapacityFit` (its `poolCapacity`), and one that does not fit needs approval
   * (`approval`) or is `forbidden` (`refuse`), as admission decides. Without it options are not weighed against
   * pool capacity.
   */
  poolCapacity?: {
    held: Record<string, PoolHeldUnits>;
    whenOverPoolCapacity: PoolCapacityPolicy;
  };
  /**
   * What an autoscaled request reserves and is priced at: the platform's `gpu.admission.autoscaledReplicas`
   * (`readAutoscaledReplicasPolicy`); default `maximum`.
   */
  autoscaledReplicas?: AutoscaledReplicasPolicy;
}
