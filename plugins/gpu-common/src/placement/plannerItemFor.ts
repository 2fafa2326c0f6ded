import { pooledCost, poolPrices } from '../cost/poolPrices';
import { findEnvironment } from '../platform/lookups';
import { EnvironmentPolicy, Platform } from '../platform/types';
import {
  environmentPreference,
  isolationRank,
  isProductionEnvironment,
} from '../quote/environmentPreference';
import { dedicatedGpuLimitReason } from '../quote/dedicatedGpuLimit';
import { ServiceRequest } from '../service/types';
import { FitResult, fitSlices } from '../sizing/fitSlices';
import { Slice } from '../tiers/types';
import { PlannerItem, PlannerOption } from './types';

/**
 * The planner's view of a service request: the slices its model fits that the environment's tiers allow, ordered as
 * the quote recommends (within policy first, then the environment's preference, then cheapest per month, stronger
 * isolation, more headroom). Dedicated slices whose GPUs, over all replicas, are above the environment's limit come
 * after those within it.
 *
 * @throws GpuDomainError `UNKNOWN_ENVIRONMENT`, `UNKNOWN_MODEL` or `UNKNOWN_POOL`.
 * @public
 */
export function plannerItemFor(
  platform: Platform,
  request: ServiceRequest,
): PlannerItem {
  const environment = findEnvironment(platform, request.environment);
  return itemFrom(
    request,
    environment,
    rankCandidates(
      platform,
      environment,
      fitSlices(platform, request).filter(fit => fit.fits),
      poolPrices(platform),
    ),
  );
}

/** One option with what ranks it, in the order of every ranking key but the dedicated-GPU limit. */
interface Candidates {
  ranked: Array<{ option: PlannerOption; slice: Slice }>;
  dedicatedGpusPerReplica?: number;
}

/**
 * The fitting slices the environment's tiers allow as options, ordered by the environment's preference, then
 * cheapest per month, stronger isolation, more headroom, then pool name. Independent of the replicas.
 */
function rankCandidates(
  platform: Platform,
  environment: EnvironmentPolicy,
  fits: readonly FitResult[],
  prices: ReturnType<typeof poolPrices>,
): Candidates {
  const production = isProductionEnvironment(environment);
  let dedicatedGpusPerReplica: number | undefined;
  const ranked: Array<{
    option: PlannerOption;
    slice: Slice;
    key: number[];
  }> = [];
  for (const fit of fits) {
    const slice = fit.slice;
    if (slice.tier === 'dedicated') {
      dedicatedGpusPerReplica = Math.min(
        dedicatedGpusPerReplica ?? Infinity,
        slice.gpusPerReplica,
      );
    }
    if (!environment.allowedTiers.includes(slice.tier)) {
      continue;
    }
    const price = prices.get(slice.pool)!;
    const monthlyCost = pooledCost(
      price,
      slice.gpuShare,
      platform.hoursPerMonth,
    );
    ranked.push({
      option: {
        tier: slice.tier,
        pool: slice.pool,
        migProfile: slice.migProfile,
        gpusPerReplica: slice.gpusPerReplica,
        gpuShare: slice.gpuShare,
        memoryBytes: slice.memoryBytes,
        monthlyCost,
      },
      slice,
      key: [
        environmentPreference(production, slice.tier, price.pool.capacityType),
        monthlyCost,
        isolationRank(slice.tier),
        -fit.headroomBytes,
      ],
    });
  }
  ranked.sort((a, b) => {
    for (let i = 0; i < a.key.length; i++) {
      if (a.key[i] !== b.key[i]) {
        return a.key[i] - b.key[i];
      }
    }
    return a.option.pool.localeCompare(b.option.pool);
  });
  return {
    ranked: ranked.map(({ option, slice }) => ({ option, slice })),
    dedicatedGpusPerReplica,
  };
}

/** The request's item: its candidates within the environment's dedicated-GPU limit first, each part in rank order. */
function itemFrom(
  request: ServiceRequest,
  environment: EnvironmentPolicy,
  candidates: Candidates,
): PlannerItem {
  const within: PlannerOption[] = [];
  const above: PlannerOption[] = [];
  for (const { option, slice } of candidates.ranked) {
    (dedicatedGpuLimitReason(environment, slice, request.replicas)
      ? above
      : within
    ).push(option);
  }
  return {
    name: request.name,
    replicas: request.replicas,
    options: above.length === 0 ? within : [...within, ...above],
    dedicatedGpusPerReplica: candidates.dedicatedGpusPerReplica,
  };
}

/**
 * {@link plannerItemFor} of many requests, with the work shared between requests of the same size and policy: 10,000
 * generated requests have a few hundred sizes (what fitSlices reads) and a few thousand shapes (size, environment,
 * replicas), while ranking is sizing a request against every slice of every pool. Fits are computed and ranked once
 * per size and environment, the dedicated-GPU limit applied once per shape; requests of one shape share one options
 * array (nothing downstream changes it). Throws as {@link plannerItemFor} does.
 *
 * @public
 */
export function plannerItemsFor(
  platform: Platform,
  requests: readonly ServiceRequest[],
): PlannerItem[] {
  const prices = poolPrices(platform);
  const fitsBySize = new Map<string, FitResult[]>();
  const candidatesBySize = new Map<string, Candidates>();
  const byShape = new Map<string, PlannerItem>();
  return requests.map(request => {
    const size = sizeKey(request);
    const shape = `${request.replicas} ${request.environment} ${size}`;
    let item = byShape.get(shape);
    if (!item) {
      const environment = findEnvironment(platform, request.environment);
      const candidatesKey = `${request.environment} ${size}`;
      let candidates = candidatesBySize.get(candidatesKey);
      if (!candidates) {
        let fits = fitsBySize.get(size);
        if (!fits) {
          fits = fitSlices(platform, request).filter(fit => fit.fits);
          fitsBySize.set(size, fits);
        }
        candidates = rankCandidates(platform, environment, fits, prices);
        candidatesBySize.set(candidatesKey, candidates);
      }
      item = itemFrom(request, environment, candidates);
      byShape.set(shape, item);
    }
    return {
      name: request.name,
      replicas: request.replicas,
      options: item.options,
      dedicatedGpusPerReplica: item.dedicatedGpusPerReplica,
    };
  });
}

/** Every field of a request fitSlices reads. */
function sizeKey(request: ServiceRequest): string {
  return JSON.stringify([
    request.model,
    request.runtime,
    request.dtype ?? null,
    request.maxModelLen,
    request.concurrency,
    request.concurrentSequences ?? null,
    request.tier ?? null,
    request.pool ?? null,
  ]);
}
