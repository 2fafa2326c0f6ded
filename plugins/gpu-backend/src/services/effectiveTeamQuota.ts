import { formatUsd, Platform, TeamQuota } from '@internal/backstage-plugin-gpu-common';
import { QuotaRecord } from '../database';

/**
 * The platform with one team's quota and budget replaced by what the database holds (the governance page edits
 * quotas there; app-config only seeds them).
 */
export function withStoredQuota(platform: Platform, quota: QuotaRecord): Platform {
  const teams = platform.teams.map(
    (team): TeamQuota =>
      team.name === quota.team
        ? {
            ...team,
            gpuQuota: quota.pools,
            monthlyBudget: formatUsd(quota.monthlyBudgetMicros, { decimals: 6 })
              .replace(/[$,]/g, ''),
          }
        : team,
  );
  return { ...platform, teams };
}
