import {
  MeasuredCapacity,
  Platform,
  sliceShapeOf,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { PrometheusClient } from '../metrics/PrometheusClient';
import { ServiceAllocation } from './AllocationReader';
import { serviceSlice } from './serviceSlice';
import {
  queryByTarget,
  sustainedThroughputQuery,
  VllmTarget,
  vllmKey,
} from './vllmQueries';

/** The window measured capacities are read over: the last 7 days. */
export const CAPACITY_WINDOW_SECONDS = 7 * 86400;

/** How long a set of measured capacities serves quotes before it is measured again (in the background). */
export const CAPACITY_TTL_MS = 10 * 60_000;

/** Targets per PromQL query, so a regex of names stays short. */
const TARGETS_PER_QUERY = 50;

/** Something that answers measured capacities (the quote's and the card's source). */
export interface CapacitySource {
  current(): Promise<readonly MeasuredCapacity[]>;
}

/**
 * Measured sustained tokens/s per replica of every service that ran in the last {@link CAPACITY_WINDOW_SECONDS}
 * (`sustainedThroughputQuery`), keyed by model and slice shape (`sliceShapeOf`), for quotes of the same shape.
 *
 * Not persisted: a short in-memory cache. The first call measures (and waits for Prometheus, bounded by its
 * timeout); later calls get the last set at once, and one older than {@link CAPACITY_TTL_MS} is measured again in the
 * background. When Prometheus fails the set is empty (quotes fall back to the estimate) until the next measurement.
 */
export class MeasuredCapacities implements CapacitySource {
  private last?: { at: number; capacities: Promise<MeasuredCapacity[]> };
  private refreshing?: Promise<MeasuredCapacity[]>;

  constructor(
    private readonly options: {
      platform: Platform;
      list: () => Promise<ServiceAllocation[]>;
      /** A bounded client per measurement; undefined when Prometheus is not configured. */
      client: () => PrometheusClient | undefined;
      clock?: () => number;
      ttlMs?: number;
      windowSeconds?: number;
    },
  ) {}

  current(): Promise<MeasuredCapacity[]> {
    const now = this.clock();
    const ttl = this.options.ttlMs ?? CAPACITY_TTL_MS;
    if (!this.last) return this.refresh(now);
    if (now - this.last.at >= ttl && !this.refreshing) void this.refresh(now);
    return this.last.capacities;
  }

  private clock(): number {
    return (this.options.clock ?? Date.now)();
  }

  private refresh(now: number): Promise<MeasuredCapacity[]> {
    const capacities = this.measure(now).catch(() => []);
    this.refreshing = capacities;
    capacities.then(() => {
      this.last = { at: now, capacities };
      if (this.refreshing === capacities) this.refreshing = undefined;
    });
    if (!this.last) this.last = { at: now, capacities };
    return capacities;
  }

  private async measure(now: number): Promise<MeasuredCapacity[]> {
    const client = this.options.client();
    if (!client) return [];
    const { platform } = this.options;
    const windowSeconds = this.options.windowSeconds ?? CAPACITY_WINDOW_SECONDS;
    const end = Math.floor(now / 1000);
    const candidates = (await this.options.list()).flatMap(({ service }) => {
      const slice = serviceSlice(platform, service);
      return slice && Object.hasOwn(platform.models, service.request.model)
        ? [{ service, slice }]
        : [];
    });
    const targets = new Map<string, VllmTarget>();
    for (const { service } of candidates) {
      const target = {
        namespace: service.namespace,
        modelName: service.request.name,
      };
      targets.set(vllmKey(target), target);
    }
    const chunks: VllmTarget[][] = [];
    const all = [...targets.values()];
    for (let i = 0; i < all.length; i += TARGETS_PER_QUERY) {
      chunks.push(all.slice(i, i + TARGETS_PER_QUERY));
    }
    const measured = new Map<string, number>();
    const results = await Promise.all(
      chunks.map(chunk =>
        queryByTarget(
          client,
          sustainedThroughputQuery(chunk, windowSeconds),
          end,
        ),
      ),
    );
    for (const result of results) {
      if (!result.ok) continue;
      for (const [key, value] of result.data) measured.set(key, value);
    }
    const windowStart = new Date((end - windowSeconds) * 1000).toISOString();
    const windowEnd = new Date(end * 1000).toISOString();
    return candidates.flatMap(({ service, slice }) => {
      const tokensPerSecond = measured.get(
        vllmKey({
          namespace: service.namespace,
          modelName: service.request.name,
        }),
      );
      if (!(tokensPerSecond !== undefined && tokensPerSecond > 0)) return [];
      return [
        {
          shape: sliceShapeOf(platform, service.request, slice),
          tokensPerSecond,
          source: {
            serviceId: service.id,
            service: service.name,
            windowStart,
            windowEnd,
          },
        },
      ];
    });
  }
}
