import {
  Platform,
  Quote,
  quoteService,
  ServiceRequest,
} from '@gpu-platform/backstage-plugin-gpu-common';
import type { CapacitySource } from '../usage/measuredCapacities';
import { GpuStore } from '../database';

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
 * Quotes with the domain model against the team's stored allowance (integer GPU units and micro-dollars, which
 * override app-config) and reservations. The form quotes on every change, many users at once, so quotes share a
 * snapshot of the team's quota (`GpuStore.getLedgerSnapshot`) instead of reading it each time; admission does not
 * depend on it: the store checks quota again in its transaction, by the same rule. So do budgets on this month's
 * spend (`GpuStore.getMonthSpendSnapshot`, cached the same way). A team without a stored quota is quoted against
 * app-config's allowance.
 */
export function createQuoteService(options: {
  platform: Platform;
  store: GpuStore;
  /** Measured sustained tokens/s of running services by slice shape; quotes of the same shape use them. */
  capacities?: CapacitySource;
}): QuoteService {
  const { platform, store, capacities } = options;
  return {
    async quote(request) {
      const [ledger, month, measuredCapacities] = await Promise.all([
        store.getLedgerSnapshot(request.team, QUOTE_SNAPSHOT_MAX_AGE_MS),
        store.getMonthSpendSnapshot(request.team, QUOTE_SNAPSHOT_MAX_AGE_MS),
        capacities?.current() ?? [],
      ]);
      if (!ledger) {
        return quoteService(
          platform,
          request,
          { reservedGpuUnits: {}, committedMonthlyCost: 0 },
          undefined,
          { measuredCapacities },
        );
      }
      return quoteService(
        platform,
        request,
        {
          reservedGpuUnits: ledger.reservedGpuUnits,
          committedMonthlyCost: ledger.reservedMonthlyCostMicros,
          month,
        },
        ledger.allowance,
        { measuredCapacities },
      );
    },
  };
}
