import { NotFoundError } from '@backstage/errors';
import {
  GroupHierarchy,
  Overview,
  poolPrices,
  ServiceCost,
  ServiceUsage,
  TeamCost,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { DateTime } from 'luxon';
import { ServiceAllocation } from './AllocationReader';
import { BatchJobCostSnapshot, CostSnapshot } from './CostSnapshotStore';
import { CircuitBreaker } from '../metrics/CircuitBreaker';
import { QuerySlots } from '../metrics/QuerySlots';
import { dailyBatchJobSnapshots, dailySnapshots } from './dailySnapshots';
import { parseExportPeriod } from './export/exportPeriod';
import { CostExport, focusRows } from './export/focusRows';
import { withLatencyBudget } from './latencyBudget';
import { CapacitySource, MeasuredCapacities } from './measuredCapacities';
import { prometheusClient } from './measurement';
import { WindowCache } from './windowCache';
import { overview } from './overview';
import { serviceCost } from './serviceCost';
import { serviceUsage } from './serviceUsage';
import { teamCost } from './teamCost';
import { dayOf, UsageContext, UsageServiceOptions } from './usageContext';
import { parseUsageWindow } from './usageWindow';

export { REGEX_SCOPE_LIMIT } from './measurement';
export type { QuotaSource, UsageServiceOptions } from './usageContext';

/**
 * Of a request's deadline, the time kept for computing the answer once its Prometheus queries have ended or been
 * cut: an eighth, at most 1 s (1 s of the default 8 s). Measured with bench/prometheusDeadline.ts: 40 cost cards cut
 * at the same moment took 1.5 s more to answer on 2 cores.
 */
export function answerReserveMs(requestDeadlineMs: number): number {
  return Math.min(1000, Math.floor(requestDeadlineMs / 8));
}

/**
 * Usage and cost of GPU services: allocation from the database (always), usage attributed per tier from Prometheus
 * (when it answers), daily snapshots for the month's history, and recommendations. Each computation lives in its
 * own module; this class parses the window, loads the services and delegates.
 */
export class UsageService {
  private readonly context: UsageContext;
  private readonly now: () => DateTime;

  constructor(options: UsageServiceOptions) {
    this.context = {
      ...options,
      prices: poolPrices(options.platform),
      prometheusQueries: options.prometheus
        ? new QuerySlots(options.prometheus.concurrency.overall)
        : undefined,
      prometheusBreaker: options.prometheus
        ? new CircuitBreaker(options.prometheus.circuitBreaker)
        : undefined,
      measurements: new WindowCache(),
      vllmQueries: new WindowCache(),
    };
    if (options.prometheus) {
      this.context.capacities = new MeasuredCapacities({
        platform: options.platform,
        list: () => options.reader.list(),
        client: () => prometheusClient(this.context),
        clock: () => this.now().toMillis(),
      });
    }
    this.now = options.now ?? (() => DateTime.utc());
  }

  /** Measured sustained tokens/s of services by model and slice shape, for quotes; undefined without Prometheus. */
  get capacities(): CapacitySource | undefined {
    return this.context.capacities;
  }

  /** Whether a metrics source is configured. */
  get metricsConfigured(): boolean {
    return this.context.prometheus !== undefined;
  }

  /**
   * The context of one API request: its queries share the time `gpu.prometheus.requestDeadline` gives the request,
   * less what the answer takes to compute from what they got ({@link answerReserveMs}), so that the request answers
   * within its deadline even when every query is cut.
   */
  private request(): UsageContext {
    const deadlineMs = this.context.prometheus?.requestDeadlineMs;
    if (deadlineMs === undefined) return this.context;
    const budgetMs = deadlineMs - answerReserveMs(deadlineMs);
    return {
      ...this.context,
      deadline: { at: Date.now() + budgetMs, budgetMs },
    };
  }

  private async load(id: string): Promise<ServiceAllocation> {
    const allocation = await this.context.reader.get(id);
    if (!allocation) {
      throw new NotFoundError(`No GPU service with id ${id}`);
    }
    return allocation;
  }

  /** `GET /services/:id/usage`. */
  async serviceUsage(id: string, windowParam: unknown): Promise<ServiceUsage> {
    const window = parseUsageWindow(windowParam, this.now());
    const allocation = await this.load(id);
    return withLatencyBudget(
      await serviceUsage(this.request(), allocation, window),
      allocation.service.request,
    );
  }

  /** The cost of every service that held GPUs on the UTC day starting at `day`: what the snapshot task stores. */
  async dailySnapshots(
    day: DateTime,
    options: { skipIfStored?: CostSnapshot[] } = {},
  ): Promise<CostSnapshot[]> {
    return dailySnapshots(this.context, day, options);
  }

  /**
   * {@link UsageService.dailySnapshots} of each day in turn, the services read from the store once for all of them
   * (the snapshot task visits the last 35 days on every run).
   */
  async *dailySnapshotsOf(
    days: DateTime[],
    options: { skipIfStored?: CostSnapshot[] } = {},
  ): AsyncGenerator<CostSnapshot[]> {
    const services = await this.context.reader.list();
    for (const day of days) {
      yield await dailySnapshots(this.context, day, { ...options, services });
    }
  }

  /**
   * What every batch job held on each of `days` (UTC days), one list per day, the batch jobs of the whole span read
   * from the store once: what the snapshot task stores beside the services' days. No metrics are read.
   */
  async *dailyBatchJobSnapshotsOf(
    days: DateTime[],
  ): AsyncGenerator<BatchJobCostSnapshot[]> {
    if (days.length === 0) return;
    const starts = days.map(d => d.toUTC().startOf('day').toMillis());
    const batchJobs = await this.context.reader.batchJobs({
      from: new Date(Math.min(...starts)),
      to: new Date(Math.max(...starts) + 86_400_000),
    });
    for (const day of days) {
      yield await dailyBatchJobSnapshots(this.context, day, { batchJobs });
    }
  }

  /** `GET /services/:id/cost`. */
  async serviceCost(id: string, windowParam: unknown): Promise<ServiceCost> {
    const window = parseUsageWindow(windowParam, this.now());
    return serviceCost(this.request(), await this.load(id), window);
  }

  /** `GET /teams/:team/cost`. */
  async teamCost(team: string, windowParam: unknown): Promise<TeamCost> {
    const window = parseUsageWindow(windowParam, this.now());
    return teamCost(this.request(), team, window);
  }

  /**
   * `GET /cost/export`: the daily FOCUS rows of every service, batch job and pool over the whole UTC days from
   * `firstDay` to `lastDay`, tagged with each team's groups in the hierarchy `groups` loads (once the period is
   * known to be valid). Allocation from the ledger only: no Prometheus query.
   */
  async costExport(
    firstDay: unknown,
    lastDay: unknown,
    groups: () => Promise<GroupHierarchy>,
  ): Promise<CostExport> {
    const period = parseExportPeriod(firstDay, lastDay, this.now());
    const [hierarchy, allocations, batchJobs] = await Promise.all([
      groups(),
      this.context.reader.list(),
      this.context.reader.batchJobs({
        from: period.from.toJSDate(),
        to: period.to.plus({ days: 1 }).toJSDate(),
      }),
    ]);
    return {
      firstDay: dayOf(period.from),
      lastDay: dayOf(period.to),
      rows: focusRows({
        platform: this.context.platform,
        prices: this.context.prices,
        allocations,
        batchJobs,
        period,
        hierarchy,
      }),
    };
  }

  /**
   * `GET /overview`: every service and team, with a constant number of PromQL queries; with `cluster` (a configured
   * cluster's name, checked by the caller), that cluster's services, pools and teams only.
   */
  async overview(windowParam: unknown, cluster?: string): Promise<Overview> {
    const window = parseUsageWindow(windowParam, this.now());
    return overview(this.request(), window, cluster);
  }
}
