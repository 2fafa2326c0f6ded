import {
  Platform,
  Quote,
  quoteService,
  ServiceRequest,
} from '@internal/backstage-plugin-gpu-common';
import { GpuStore, QuotaRecord } from '../database';
import { withStoredQuota } from './effectiveTeamQuota';

/** Quotes requests against the platform and what the team already holds. */
export interface QuoteService {
  quote(request: ServiceRequest): Promise<Quote>;
}

/**
 * How old a team's quota snapshot may be when a quote uses it. Writes through this backend invalidate it at once;
 * writes by other replicas show after this long.
 */
export const QUOTE_SNAPSHOT_MAX_AGE_MS = 1000;

/**
 * Quotes with the domain model against the team's stored quota and reservations. The form quotes on every change,
 * many users at once, so quotes share a snapshot of the team's quota (`GpuStore.getQuotaSnapshot`) instead of reading
 * it each time; admission does not depend on it: the store checks quota again in its transaction. So do budgets on
 * this month's spend (`GpuStore.getMonthSpendSnapshot`, cached the same way).
 */
export function createQuoteService(options: {
  platform: Platform;
  store: GpuStore;
}): QuoteService {
  const { platform, store } = options;
  // One platform per quota snapshot, so what the domain model caches per platform and team object (pool prices,
  // parsed budgets) is computed once per snapshot, not once per quote.
  const platforms = new WeakMap<QuotaRecord, Platform>();
  const platformFor = (quota: QuotaRecord) => {
    let effective = platforms.get(quota);
    if (!effective) {
      effective = withStoredQuota(platform, quota);
      platforms.set(quota, effective);
    }
    return effective;
  };
  return {
    async quote(request) {
      const [quota, month] = await Promise.all([
        store.getQuotaSnapshot(request.team, QUOTE_SNAPSHOT_MAX_AGE_MS),
        store.getMonthSpendSnapshot(request.team, QUOTE_SNAPSHOT_MAX_AGE_MS),
      ]);
      if (!quota) {
        return quoteService(platform, request, {
          reservedGpuEquivalents: {},
          committedMonthlyCost: 0,
        });
      }
      return quoteService(platformFor(quota), request, {
        reservedGpuEquivalents: quota.reservedGpuEquivalents,
        committedMonthlyCost: quota.reservedMonthlyCostMicros,
        month,
      });
    },
  };
}
