import {
  DatabaseService,
  LoggerService,
  RootConfigService,
  SchedulerService,
} from '@backstage/backend-plugin-api';
import {
  Platform,
  readManagedApiPrice,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { readPrometheusConfig } from '../metrics/PrometheusConfig';
import { AllocationReader } from './AllocationReader';
import { CostSnapshotStore } from './CostSnapshotStore';
import { scheduleSnapshotTask } from './snapshotTask';
import { QuotaSource, UsageService } from './UsageService';

/**
 * Wires usage and cost: reads `gpu.prometheus`, opens the snapshot table (migrated with the store) and schedules the
 * daily snapshot task. Call after the store is created, so the migrations have run.
 */
export async function createUsage(options: {
  config: RootConfigService;
  database: DatabaseService;
  scheduler: SchedulerService;
  logger: LoggerService;
  platform: Platform;
  quotas: QuotaSource;
}): Promise<UsageService> {
  const { config, database, scheduler, logger, platform, quotas } = options;
  const prometheus = readPrometheusConfig(config);
  const db = await database.getClient();
  const snapshots = new CostSnapshotStore(db);
  const usage = new UsageService({
    platform,
    reader: new AllocationReader(db),
    snapshots,
    quotas,
    prometheus,
    managedApi: readManagedApiPrice(config),
  });
  logger.info(
    prometheus
      ? `GPU usage from Prometheus at ${prometheus.baseUrl}`
      : 'No gpu.prometheus configured: GPU cost is allocation only',
  );
  await scheduleSnapshotTask({ scheduler, usage, snapshots, logger });
  return usage;
}
