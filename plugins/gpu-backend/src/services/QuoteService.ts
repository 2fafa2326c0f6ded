import {
  Platform,
  Quote,
  quoteService,
  ServiceRequest,
} from '@internal/backstage-plugin-gpu-common';
import { GpuStore } from '../database';
import { withStoredQuota } from './effectiveTeamQuota';

/** Quotes requests against the platform and what the team already holds. */
export interface QuoteService {
  quote(request: ServiceRequest): Promise<Quote>;
}

/** Reads the team's quota and reservations from the store and quotes with the domain model. */
export function createQuoteService(options: {
  platform: Platform;
  store: GpuStore;
}): QuoteService {
  const { platform, store } = options;
  return {
    async quote(request) {
      const quota = await store.getQuota(request.team);
      if (!quota) {
        return quoteService(platform, request, {
          reservedGpuEquivalents: {},
          committedMonthlyCost: 0,
        });
      }
      return quoteService(withStoredQuota(platform, quota), request, {
        reservedGpuEquivalents: quota.reservedGpuEquivalents,
        committedMonthlyCost: quota.reservedMonthlyCostMicros,
      });
    },
  };
}
