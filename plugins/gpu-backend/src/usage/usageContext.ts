import {
  ManagedApiPrice,
  Platform,
  PoolPrice,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { DateTime } from 'luxon';
import { QuotaRecord } from '../database';
import { CircuitBreaker } from '../metrics/CircuitBreaker';
import { PrometheusSettings } from '../metrics/PrometheusConfig';
import { QuerySlots } from '../metrics/QuerySlots';
import { AllocationReader } from './AllocationReader';
import { CostSnapshotStore } from './CostSnapshotStore';
import type { CapacitySource } from './measuredCapacities';
import type { QueryResult, RequestDeadline } from '../metrics/PrometheusClient';
import type { Measurement } from './measurement';
import type { WindowCache } from './windowCache';

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
  /** The managed API `gpu.managedApi` names, compared with on each service's cost. */
  managedApi?: ManagedApiPrice;
  fetchImpl?: typeof fetch;
  now?: () => DateTime;
  /** Above this many services, select every pod instead of a regex of names (default `REGEX_SCOPE_LIMIT`). */
  regexScopeLimit?: number;
}

/** What the usage and cost computations share: the service's options and the platform's pool prices. */
export interface UsageContext extends UsageServiceOptions {
  prices: ReadonlyMap<string, PoolPrice>;
  /**
   * Process-wide PromQL HTTP request slots (`gpu.prometheus.concurrency.overall`), shared fairly between API requests
   * (each one's share `concurrency.perRequest`).
   */
  prometheusQueries?: QuerySlots;
  /** The circuit breaker of the configured Prometheus, shared by every request. */
  prometheusBreaker?: CircuitBreaker;
  /** The deadline of the API request being answered, shared by all its queries; none for background tasks. */
  deadline?: RequestDeadline;
  /** Measurements shared by the routes for a short while (see `windowCache.ts`). */
  measurements?: WindowCache<Measurement>;
  /** Measured sustained tokens/s of running services by slice shape (see `measuredCapacities.ts`). */
  capacities?: CapacitySource;
  /** The per-service vLLM queries of `/cost`, shared for a short while keyed by PromQL. */
  vllmQueries?: WindowCache<QueryResult<Map<string, number>>>;
}

/** The UTC day (`yyyy-MM-dd`) of a time in epoch milliseconds. */
export const dayOfMillis = (ms: number) =>
  new Date(ms).toISOString().slice(0, 10);

/** The UTC day (`yyyy-MM-dd`) of a time. */
export const dayOf = (dt: DateTime) => dayOfMillis(dt.toMillis());
