import { pooledCost, poolPrices } from '../cost/poolPrices';
import { findEnvironment } from '../platform/lookups';
import { Platform } from '../platform/types';
import {
  environmentPreference,
  isolationRank,
  isProductionEnvironment,
} from '../quote/environmentPreference';
import { dedicatedGpuLimitReason } from '../quote/dedicatedGpuLimit';
import { ServiceRequest } from '../service/types';
import { fitSlices } from '../sizing/fitSlices';
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
  const production = isProductionEnvironment(environment);
  const prices = poolPrices(platform);
  const fits = fitSlices(platform, request).filter(fit => fit.fits);

  let dedicatedGpusPerReplica: number | undefined;
  const ranked: Array<{ option: PlannerOption; key: number[] }> = [];
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
      key: [
        dedicatedGpuLimitReason(environment, slice, request.replicas) ? 1 : 0,
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
    name: request.name,
    replicas: request.replicas,
    options: ranked.map(r => r.option),
    dedicatedGpusPerReplica,
  };
}
