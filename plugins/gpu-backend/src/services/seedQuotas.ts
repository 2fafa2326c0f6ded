import { LoggerService } from '@backstage/backend-plugin-api';
import { parseUsd, Platform } from '@gpu-platform/backstage-plugin-gpu-common';
import { GpuStore } from '../database';

/** Actor recorded in the audit trail for quotas taken from app-config. */
export const CONFIG_ACTOR = 'config:app-config';

/**
 * Gives every configured team without a stored quota the quota and budget from app-config. Stored quotas win:
 * after the first start the governance page owns them.
 */
export async function seedQuotas(options: {
  platform: Platform;
  store: GpuStore;
  logger: LoggerService;
}): Promise<void> {
  const { platform, store, logger } = options;
  const stored = new Set((await store.listQuotas()).map(q => q.team));
  for (const team of platform.teams) {
    if (stored.has(team.name)) continue;
    await store.putQuota({
      team: team.name,
      quota: {
        pools: team.gpuQuota,
        monthlyBudgetMicros: parseUsd(team.monthlyBudget),
      },
      actor: CONFIG_ACTOR,
    });
    logger.info('Seeded team quota from config', { team: team.name });
  }
}
