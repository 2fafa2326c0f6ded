import { NotFoundError } from '@backstage/errors';
import {
  CostFigures,
  costPerThousandTokens,
  DailyCost,
  MetricsStatus,
  Overview,
  parseUsd,
  Platform,
  poolPrices,
  PoolPrice,
  ServiceCost,
  ServiceCostSummary,
  ServiceUsage,
  TeamCost,
  UsageWindow,
} from '@internal/backstage-plugin-gpu-common';
import { serviceObjectNames } from '@internal/backstage-plugin-gpu-node';
import { DateTime } from 'luxon';
import {
  collectSeries,
  collectWindowMetrics,
  MetricScope,
  MetricTarget,
  WindowMetrics,
} from '../metrics/collectMetrics';
import { PrometheusClient } from '../metrics/PrometheusClient';
import { PrometheusSettings } from '../metrics/PrometheusConfig';
import { MIB } from '../metrics/metricNames';
import { QuotaRecord } from '../database';
import { AllocationReader, ServiceAllocation } from './AllocationReader';
import { allocationInRange, monthlyAllocationAt } from './allocation';
import { Attribution, attributeUsage, AttributionTarget } from './attribution';
import { CostSnapshot, CostSnapshotStore } from './CostSnapshotStore';
import { metricsStatus, NOT_CONFIGURED } from './metricsStatus';
import { recommend } from './recommendations';
import { serviceSlice } from './serviceSlice';
import { parseUsageWindow, unixSeconds } from './usageWindow';
import {
  burn,
  monthElapsed,
  sortRecommendations,
  split,
  totalsOf,
} from './costTotals';
import { seriesOf } from './timeSeries';

/** Above this many services, queries select every pod and filter in code instead of a regex of names. */
export const REGEX_SCOPE_LIMIT = 50;

/** Families cost needs (the month-to-date measurement). */
const COST_FAMILIES: Array<keyof WindowMetrics> = [
  'util',
  'engine',
  'generated',
];

/** Where the team budgets come from. */
export interface QuotaSource {
  getQuota(team: string): Promise<QuotaRecord | undefined>;
  listQuotas(): Promise<QuotaRecord[]>;
}

export interface UsageServiceOptions {
  platform: Platform;
  reader: AllocationReader;
  snapshots: CostSnapshotStore;
  quotas: QuotaSource;
  /** Undefined when no Prometheus is configured. */
  prometheus?: PrometheusSettings;
  fetchImpl?: typeof fetch;
  now?: () => DateTime;
  /** Above this many services, select every pod instead of a regex of names (default {@link REGEX_SCOPE_LIMIT}). */
  regexScopeLimit?: number;
}

/** A measurement of services over a range: status, per-service attribution, queries issued. */
interface Measurement {
  status: MetricsStatus;
  usage: Map<string, Attribution>;
  metrics?: WindowMetrics;
}

type Target = AttributionTarget & MetricTarget;

const dayOf = (dt: DateTime) => dt.toUTC().toISODate()!;

/**
 * Usage and cost of GPU services: allocation from the database (always), usage attributed per tier from Prometheus
 * (when it answers), daily snapshots for the month's history, and recommendations.
 */
export class UsageService {
  private readonly prices: ReadonlyMap<string, PoolPrice>;
  private readonly now: () => DateTime;

  constructor(private readonly options: UsageServiceOptions) {
    this.prices = poolPrices(options.platform);
    this.now = options.now ?? (() => DateTime.utc());
  }

  /** Whether a metrics source is configured. */
  get metricsConfigured(): boolean {
    return this.options.prometheus !== undefined;
  }

  private target(allocation: ServiceAllocation): Target {
    const { service, reservations } = allocation;
    const slice = serviceSlice(this.options.platform, service);
    const replicas = Math.max(1, service.request.replicas);
    const held =
      reservations.find(r => r.state === 'held') ??
      reservations[reservations.length - 1];
    return {
      id: service.id,
      namespace: service.namespace,
      deployment: serviceObjectNames(service.request.name).deployment,
      modelName: service.request.name,
      tier: service.tier,
      shared: service.tier === 'mps' || service.tier === 'time-sliced',
      gpuSharePerReplica:
        slice?.gpuShare ?? (held ? held.gpuEquivalents / replicas : 1),
    };
  }

  private client(): PrometheusClient | undefined {
    const { prometheus, fetchImpl } = this.options;
    return prometheus ? new PrometheusClient(prometheus, fetchImpl) : undefined;
  }

  private async measure(
    client: PrometheusClient | undefined,
    allocations: ServiceAllocation[],
    window: { end: number; seconds: number; step: number },
    only?: Array<keyof WindowMetrics>,
  ): Promise<Measurement> {
    if (!client || !this.options.prometheus) {
      return { status: NOT_CONFIGURED, usage: new Map() };
    }
    const targets = allocations.map(a => this.target(a));
    if (targets.length === 0) {
      return { status: { state: 'available' }, usage: new Map() };
    }
    const scope: MetricScope =
      targets.length > (this.options.regexScopeLimit ?? REGEX_SCOPE_LIMIT)
        ? { kind: 'all' }
        : { kind: 'services', targets };
    const metrics = await collectWindowMetrics({
      client,
      scope,
      end: window.end,
      windowSeconds: window.seconds,
      stepSeconds: window.step,
      labels: this.options.prometheus.labels,
      only,
    });
    const status = metricsStatus(metrics);
    return { status, usage: attributeUsage(targets, metrics), metrics };
  }

  /** The status for one service: the global one, or `no-data` when Prometheus answered without its series. */
  private serviceStatus(
    measurement: Measurement,
    usage: Attribution | undefined,
  ): MetricsStatus {
    const { status } = measurement;
    if (status.state === 'unavailable' || status.state === 'not-configured')
      return status;
    if (
      !usage ||
      (usage.seriesCount === 0 && usage.generatedTokens === undefined)
    ) {
      return {
        state: 'no-data',
        reason:
          'Prometheus has no DCGM or vLLM series for this service in the window yet',
      };
    }
    if (!usage.utilisation && status.state === 'available') {
      return {
        state: 'partial',
        reason:
          'No DCGM series for the service in the window: utilisation unknown',
        missing: ['DCGM_FI_DEV_GPU_UTIL'],
      };
    }
    return status;
  }

  private async load(id: string): Promise<ServiceAllocation> {
    const allocation = await this.options.reader.get(id);
    if (!allocation) {
      throw new NotFoundError(`No GPU service with id ${id}`);
    }
    return allocation;
  }

  /** `GET /services/:id/usage`. */
  async serviceUsage(id: string, windowParam: unknown): Promise<ServiceUsage> {
    const window = parseUsageWindow(windowParam, this.now());
    const allocation = await this.load(id);
    const { service } = allocation;
    const client = this.client();
    const end = unixSeconds(window.end);
    const start = unixSeconds(window.start);
    const slice = serviceSlice(this.options.platform, service);
    const [measurement, series] = await Promise.all([
      this.measure(client, [allocation], {
        end,
        seconds: window.durationSeconds,
        step: window.stepSeconds,
      }),
      client && this.options.prometheus
        ? collectSeries({
            client,
            targets: [this.target(allocation)],
            start,
            end,
            stepSeconds: window.stepSeconds,
            labels: this.options.prometheus.labels,
          })
        : undefined,
    ]);
    const usage = measurement.usage.get(id);
    const replicas = Math.max(1, service.request.replicas);
    // The slice's memory; DCGM's FB_USED + FB_FREE when the pool has left the config.
    const allocatedBytes = slice
      ? slice.memoryBytes * replicas
      : usage?.deviceMemoryBytes ?? 0;
    const held = allocationInRange(
      allocation.reservations,
      this.prices,
      Date.parse(window.start),
      Date.parse(window.end),
    );
    const share = usage?.shareOfDevice ?? 1;
    const shared = service.tier === 'mps' || service.tier === 'time-sliced';
    const seconds = window.durationSeconds;
    return {
      serviceId: service.id,
      name: service.name,
      team: service.team,
      namespace: service.namespace,
      environment: service.environment,
      tier: service.tier,
      pool: service.pool,
      ...(service.placement.migProfile
        ? { migProfile: service.placement.migProfile }
        : {}),
      window,
      metrics: this.serviceStatus(measurement, usage),
      gpuEquivalents: held.gpuEquivalentsAtEnd,
      ...(usage?.utilisation ? { utilisation: usage.utilisation } : {}),
      ...(usage?.engineActive ? { engineActive: usage.engineActive } : {}),
      ...(usage?.memoryUsedBytes
        ? {
            memory: {
              usedBytes: usage.memoryUsedBytes,
              peakUsedBytes:
                usage.peakMemoryBytes ?? usage.memoryUsedBytes.value,
              allocatedBytes,
              peakFraction:
                allocatedBytes > 0
                  ? (usage.peakMemoryBytes ?? usage.memoryUsedBytes.value) /
                    allocatedBytes
                  : 0,
            },
          }
        : {}),
      ...(usage?.powerWatts ? { powerWatts: usage.powerWatts } : {}),
      ...(usage?.xid ? { xid: usage.xid } : {}),
      ...(usage?.generatedTokens !== undefined
        ? {
            tokens: {
              generated: usage.generatedTokens,
              prompt: usage.promptTokens ?? 0,
              generatedPerSecond: usage.generatedTokens / seconds,
              promptPerSecond: (usage.promptTokens ?? 0) / seconds,
              shareOfDevice: usage.shareOfDevice ?? 1,
            },
          }
        : {}),
      ...(usage?.running !== undefined || usage?.waiting !== undefined
        ? {
            requests: {
              running: usage?.running ?? 0,
              waiting: usage?.waiting ?? 0,
            },
          }
        : {}),
      ...(usage?.kvCacheUsage !== undefined
        ? { kvCacheUsage: usage.kvCacheUsage }
        : {}),
      ...(usage?.latency ? { latency: usage.latency } : {}),
      series: {
        // Shared tiers: the device's utilisation x the service's token share / the share it holds, as attributed.
        utilisation: series?.util.ok
          ? seriesOf(
              series.util.data,
              shared ? share / this.target(allocation).gpuSharePerReplica : 1,
              'mean',
              v => v / 100,
            ).map(p => ({ ...p, value: Math.min(1, p.value) }))
          : [],
        memoryUsedBytes: series?.fbUsed.ok
          ? seriesOf(
              series.fbUsed.data,
              1,
              shared ? 'mean' : 'sum',
              v => v * MIB,
            )
          : [],
        generatedTokensPerSecond: series?.generatedRate.ok
          ? seriesOf(series.generatedRate.data, 1, 'sum')
          : [],
        queueDepth: series?.waiting.ok
          ? seriesOf(series.waiting.data, 1, 'sum')
          : [],
      },
    };
  }

  /** Month-to-date per service: snapshots before the live range, then one measurement of the live range. */
  private async monthToDate(
    client: PrometheusClient | undefined,
    allocations: ServiceAllocation[],
    now: DateTime,
  ) {
    const monthStart = now.startOf('month');
    const todayStart = now.startOf('day');
    const yesterday = todayStart.minus({ days: 1 });
    const snapshots =
      todayStart > monthStart
        ? await this.options.snapshots.list({
            serviceIds:
              allocations.length <= 500
                ? allocations.map(a => a.service.id)
                : undefined,
            fromDay: dayOf(monthStart),
            toDay: dayOf(yesterday),
          })
        : [];
    const byService = new Map<string, Map<string, CostSnapshot>>();
    for (const snapshot of snapshots) {
      const days =
        byService.get(snapshot.serviceId) ?? new Map<string, CostSnapshot>();
      days.set(snapshot.day, snapshot);
      byService.set(snapshot.serviceId, days);
    }
    // The live range starts at the first day of the month that held GPUs but has no snapshot.
    const monthDays: Array<{ day: string; startMs: number; endMs: number }> =
      [];
    for (let day = monthStart; day < todayStart; day = day.plus({ days: 1 })) {
      monthDays.push({
        day: dayOf(day),
        startMs: day.toMillis(),
        endMs: day.plus({ days: 1 }).toMillis(),
      });
    }
    let liveIndex = monthDays.length;
    for (const { service, reservations } of allocations) {
      const days = byService.get(service.id);
      const firstHeld = Math.min(
        ...reservations.map(r => (r.heldAt ? Date.parse(r.heldAt) : Infinity)),
      );
      for (let i = 0; i < liveIndex; i++) {
        const { day, startMs, endMs } = monthDays[i];
        if (endMs <= firstHeld || days?.has(day)) continue;
        if (
          allocationInRange(reservations, this.prices, startMs, endMs)
            .allocationMicros > 0
        ) {
          liveIndex = i;
          break;
        }
      }
    }
    const liveStart =
      liveIndex < monthDays.length
        ? DateTime.fromMillis(monthDays[liveIndex].startMs, { zone: 'utc' })
        : todayStart;
    const liveDay = dayOf(liveStart);
    const liveSeconds = Math.max(
      1,
      Math.round(now.diff(liveStart).as('seconds')),
    );
    const measurement = await this.measure(
      client,
      allocations,
      { end: Math.round(now.toSeconds()), seconds: liveSeconds, step: 3600 },
      COST_FAMILIES,
    );
    const result = new Map<
      string,
      CostFigures & { snapshotDays: number; tokens?: number }
    >();
    for (const { service, reservations } of allocations) {
      const days = byService.get(service.id) ?? new Map<string, CostSnapshot>();
      const kept = [...days.values()].filter(s => s.day < liveDay);
      const live = allocationInRange(
        reservations,
        this.prices,
        liveStart.toMillis(),
        now.toMillis(),
      );
      const utilisation = measurement.usage.get(service.id)?.utilisation?.value;
      // Nothing held in the live range costs nothing, whatever the metrics say.
      const liveUtilisation = live.allocationMicros === 0 ? 0 : utilisation;
      const liveFigures: CostFigures =
        liveUtilisation !== undefined
          ? split(live.allocationMicros, liveUtilisation)
          : { allocationMicros: live.allocationMicros };
      const parts: CostFigures[] = [...kept, liveFigures];
      const usageKnown = parts.every(p => p.usageMicros !== undefined);
      result.set(service.id, {
        allocationMicros: parts.reduce((t, p) => t + p.allocationMicros, 0),
        ...(usageKnown
          ? {
              usageMicros: parts.reduce((t, p) => t + p.usageMicros!, 0),
              idleMicros: parts.reduce((t, p) => t + (p.idleMicros ?? 0), 0),
            }
          : {}),
        snapshotDays: kept.length,
      });
    }
    return { month: now.toFormat('yyyy-MM'), result, snapshots: byService };
  }

  /** Cost rows of services over a window, plus month-to-date and recommendations. */
  private async summarise(
    allocations: ServiceAllocation[],
    window: UsageWindow,
  ) {
    const client = this.client();
    const now = DateTime.fromISO(window.end, { zone: 'utc' });
    const monthEnd = now.endOf('month').plus({ milliseconds: 1 });
    const [measurement, mtd] = await Promise.all([
      this.measure(client, allocations, {
        end: unixSeconds(window.end),
        seconds: window.durationSeconds,
        step: window.stepSeconds,
      }),
      this.monthToDate(client, allocations, now),
    ]);
    const rows = allocations.map(allocation => {
      const { service, reservations } = allocation;
      const usage = measurement.usage.get(service.id);
      const held = allocationInRange(
        reservations,
        this.prices,
        Date.parse(window.start),
        Date.parse(window.end),
      );
      const rest = allocationInRange(
        reservations,
        this.prices,
        now.toMillis(),
        monthEnd.toMillis(),
      );
      const monthToDate = mtd.result.get(service.id)!;
      const utilisation = usage?.utilisation;
      const figures: CostFigures = utilisation
        ? split(held.allocationMicros, utilisation.value)
        : { allocationMicros: held.allocationMicros };
      const monthlyAllocationMicros = monthlyAllocationAt(
        reservations,
        now.toMillis(),
      );
      const slice = serviceSlice(this.options.platform, service);
      const recommendations = recommend({
        platform: this.options.platform,
        prices: this.prices,
        service,
        slice,
        usage,
        monthlyAllocationMicros,
        windowSeconds: window.durationSeconds,
      });
      const tokens = usage?.generatedTokens;
      const price = this.prices.get(service.pool);
      const summary: ServiceCostSummary = {
        serviceId: service.id,
        name: service.name,
        team: service.team,
        namespace: service.namespace,
        environment: service.environment,
        status: service.status,
        tier: service.tier,
        pool: service.pool,
        ...(service.placement.migProfile
          ? { migProfile: service.placement.migProfile }
          : {}),
        gpuEquivalents: held.gpuEquivalentsAtEnd,
        ...figures,
        ...(utilisation ? { utilisation } : {}),
        ...(usage?.peakMemoryBytes !== undefined && slice
          ? {
              peakMemoryFraction:
                usage.peakMemoryBytes /
                (slice.memoryBytes * Math.max(1, service.request.replicas)),
            }
          : {}),
        ...(tokens !== undefined ? { generatedTokens: tokens } : {}),
        ...(tokens
          ? {
              costPerThousandTokensMicros: costPerThousandTokens(
                held.allocationMicros,
                tokens,
              ),
            }
          : {}),
        ...(price?.onDemand ? { spotSavingMicros: held.spotSavingMicros } : {}),
        monthToDateMicros: monthToDate.allocationMicros,
        projectedMonthMicros:
          monthToDate.allocationMicros + rest.allocationMicros,
      };
      return {
        allocation,
        summary,
        held,
        usage,
        monthToDate,
        monthlyAllocationMicros,
        recommendations,
        status: this.serviceStatus(measurement, usage),
      };
    });
    return {
      rows,
      status: measurement.status,
      month: mtd.month,
      snapshots: mtd.snapshots,
      now,
      queries: client?.queryCount ?? 0,
    };
  }

  /**
   * The cost of every service that held GPUs on the UTC day starting at `day`, measured over that day: what the
   * daily snapshot task stores. Usage is absent when Prometheus is unavailable.
   */
  async dailySnapshots(
    day: DateTime,
    options: { skipIfStored?: CostSnapshot[] } = {},
  ): Promise<CostSnapshot[]> {
    const start = day.toUTC().startOf('day');
    const end = start.plus({ days: 1 });
    const allocations = (await this.options.reader.list()).filter(a =>
      a.reservations.some(
        r =>
          r.heldAt &&
          Date.parse(r.heldAt) < end.toMillis() &&
          (!r.releasedAt || Date.parse(r.releasedAt) > start.toMillis()),
      ),
    );
    const complete = new Set(
      (options.skipIfStored ?? [])
        .filter(s => s.day === dayOf(start) && s.usageMicros !== undefined)
        .map(s => s.serviceId),
    );
    if (allocations.every(a => complete.has(a.service.id))) {
      return [];
    }
    const measurement = await this.measure(
      this.client(),
      allocations,
      { end: Math.round(end.toSeconds()), seconds: 86400, step: 3600 },
      COST_FAMILIES,
    );
    return allocations
      .map(({ service, reservations }) => {
        const held = allocationInRange(
          reservations,
          this.prices,
          start.toMillis(),
          end.toMillis(),
        );
        const usage = measurement.usage.get(service.id);
        const figures = usage?.utilisation
          ? split(held.allocationMicros, usage.utilisation.value)
          : { allocationMicros: held.allocationMicros };
        return {
          serviceId: service.id,
          day: dayOf(start),
          team: service.team,
          pool: service.pool,
          tier: service.tier,
          ...figures,
          ...(usage?.utilisation
            ? {
                utilisation: usage.utilisation.value,
                method: usage.utilisation.method,
              }
            : {}),
          ...(usage?.generatedTokens !== undefined
            ? { generatedTokens: usage.generatedTokens }
            : {}),
        };
      })
      .filter(s => s.allocationMicros > 0);
  }

  /** `GET /services/:id/cost`. */
  async serviceCost(id: string, windowParam: unknown): Promise<ServiceCost> {
    const window = parseUsageWindow(windowParam, this.now());
    const allocation = await this.load(id);
    const { rows, month, snapshots, now } = await this.summarise(
      [allocation],
      window,
    );
    const [row] = rows;
    const { service, reservations } = allocation;
    const price = this.prices.get(service.pool);
    const stored = snapshots.get(id) ?? new Map<string, CostSnapshot>();
    const daily: DailyCost[] = [];
    const windowStart = DateTime.fromISO(window.start, { zone: 'utc' });
    for (
      let day = windowStart.startOf('day');
      day < now;
      day = day.plus({ days: 1 })
    ) {
      const snapshot = stored.get(dayOf(day));
      if (snapshot) {
        daily.push({
          date: snapshot.day,
          source: 'snapshot',
          allocationMicros: snapshot.allocationMicros,
          ...(snapshot.usageMicros !== undefined
            ? {
                usageMicros: snapshot.usageMicros,
                idleMicros: snapshot.idleMicros,
              }
            : {}),
          ...(snapshot.utilisation !== undefined
            ? { utilisation: snapshot.utilisation }
            : {}),
          ...(snapshot.generatedTokens !== undefined
            ? { generatedTokens: snapshot.generatedTokens }
            : {}),
        });
        continue;
      }
      const from = Math.max(day.toMillis(), windowStart.toMillis());
      const to = Math.min(day.plus({ days: 1 }).toMillis(), now.toMillis());
      const live = allocationInRange(reservations, this.prices, from, to);
      daily.push({
        date: dayOf(day),
        source: 'live',
        allocationMicros: live.allocationMicros,
      });
    }
    const { summary } = row;
    return {
      serviceId: service.id,
      name: service.name,
      team: service.team,
      namespace: service.namespace,
      environment: service.environment,
      status: service.status,
      tier: service.tier,
      pool: service.pool,
      ...(summary.migProfile ? { migProfile: summary.migProfile } : {}),
      window,
      metrics: row.status,
      gpuEquivalents: summary.gpuEquivalents,
      gpuHourPriceMicros: price?.gpuHour ?? 0,
      allocatedHours: row.held.hours,
      allocationMicros: summary.allocationMicros,
      ...(summary.usageMicros !== undefined
        ? { usageMicros: summary.usageMicros, idleMicros: summary.idleMicros }
        : {}),
      ...(summary.utilisation ? { utilisation: summary.utilisation } : {}),
      ...(summary.usageMicros !== undefined && summary.allocationMicros > 0
        ? { idleShare: summary.idleMicros! / summary.allocationMicros }
        : {}),
      ...(summary.spotSavingMicros !== undefined
        ? { spotSavingMicros: summary.spotSavingMicros }
        : {}),
      ...(summary.generatedTokens !== undefined
        ? { generatedTokens: summary.generatedTokens }
        : {}),
      ...(summary.costPerThousandTokensMicros !== undefined
        ? { costPerThousandTokensMicros: summary.costPerThousandTokensMicros }
        : {}),
      monthToDate: {
        month,
        allocationMicros: row.monthToDate.allocationMicros,
        ...(row.monthToDate.usageMicros !== undefined
          ? {
              usageMicros: row.monthToDate.usageMicros,
              idleMicros: row.monthToDate.idleMicros,
            }
          : {}),
        snapshotDays: row.monthToDate.snapshotDays,
      },
      projectedMonthMicros: summary.projectedMonthMicros,
      monthlyAllocationMicros: row.monthlyAllocationMicros,
      daily,
      recommendations: row.recommendations,
    };
  }

  /** `GET /teams/:team/cost`. */
  async teamCost(team: string, windowParam: unknown): Promise<TeamCost> {
    const window = parseUsageWindow(windowParam, this.now());
    const [allocations, quota] = await Promise.all([
      this.options.reader.list({ team }),
      this.options.quotas.getQuota(team),
    ]);
    const configured = this.options.platform.teams.find(t => t.name === team);
    if (!quota && !configured && allocations.length === 0) {
      throw new NotFoundError(`No GPU team ${team}`);
    }
    const budget =
      quota?.monthlyBudgetMicros ??
      (configured ? parseUsd(configured.monthlyBudget) : 0);
    const { rows, status, month, now } = await this.summarise(
      allocations,
      window,
    );
    const totals = totalsOf(rows.map(r => r.summary));
    return {
      team,
      window,
      metrics: status,
      month,
      ...totals.figures,
      monthlyBudgetMicros: budget,
      monthToDateMicros: totals.monthToDate,
      projectedMonthMicros: totals.projected,
      ...burn(totals.monthToDate, totals.projected, budget),
      monthElapsed: monthElapsed(now),
      spotSavingMicros: totals.spotSaving,
      services: rows.map(r => r.summary),
      recommendations: sortRecommendations(
        rows.flatMap(r => r.recommendations),
      ),
    };
  }

  /** `GET /overview`: every service and team, with a constant number of PromQL queries. */
  async overview(windowParam: unknown): Promise<Overview> {
    const window = parseUsageWindow(windowParam, this.now());
    const [allocations, quotas] = await Promise.all([
      this.options.reader.list(),
      this.options.quotas.listQuotas(),
    ]);
    const { rows, status, month, queries } = await this.summarise(
      allocations,
      window,
    );
    const summaries = rows.map(r => r.summary);
    const totals = totalsOf(summaries);
    const budgets = new Map<string, number>();
    for (const team of this.options.platform.teams)
      budgets.set(team.name, parseUsd(team.monthlyBudget));
    for (const quota of quotas)
      budgets.set(quota.team, quota.monthlyBudgetMicros);
    const teams = [
      ...new Set([...budgets.keys(), ...summaries.map(s => s.team)]),
    ]
      .sort()
      .map(team => {
        const teamTotals = totalsOf(summaries.filter(s => s.team === team));
        const budget = budgets.get(team) ?? 0;
        return {
          team,
          ...teamTotals.figures,
          monthlyBudgetMicros: budget,
          monthToDateMicros: teamTotals.monthToDate,
          projectedMonthMicros: teamTotals.projected,
          ...burn(teamTotals.monthToDate, teamTotals.projected, budget),
        };
      });
    return {
      window,
      metrics: status,
      queryCount: queries,
      month,
      ...totals.figures,
      monthToDateMicros: totals.monthToDate,
      projectedMonthMicros: totals.projected,
      spotSavingMicros: totals.spotSaving,
      services: summaries,
      teams,
      recommendations: sortRecommendations(
        rows.flatMap(r => r.recommendations),
      ),
    };
  }
}
