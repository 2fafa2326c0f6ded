import {
  ClusterMode,
  Dtype,
  LatencyBudget,
  Platform,
  poolPrices,
  pooledCost,
  SharingTier,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { Knex } from 'knex';
import { DatabaseGpuStore } from '../../database';

/** A service to store for usage tests, held from `heldAt` (and released at `releasedAt`). */
export interface SeededService {
  name: string;
  team: string;
  namespace: string;
  environment: string;
  tier: SharingTier;
  pool: string;
  migProfile?: string;
  /** The model served (default llama-3.1-8b) and its dtype (default the model's); what the recommendations fit. */
  model?: string;
  dtype?: Dtype;
  /** The request's max model length (default 8192). */
  maxModelLen?: number;
  /** The latency budget the request states. */
  latencyBudget?: LatencyBudget;
  /** GPU-equivalents of all replicas. */
  gpuEquivalents: number;
  replicas?: number;
  heldAt: string;
  releasedAt?: string;
  /**
   * `apply` (default): cost accrues over `runs`; `dry-run`: nothing runs, the held time is reserved only; `gitops`:
   * cost accrues over the held time.
   */
  mode?: ClusterMode;
  /**
   * Apply mode: when the workload ran (`stoppedAt` absent: still runs). Default: over the whole held time, so a test
   * about spend sees the held time as spend.
   */
  runs?: Array<{ startedAt: string; stoppedAt?: string }>;
}

/**
 * Stores services with held reservations through the store (so the real schema and ledger are used), then moves
 * their held time to `heldAt` (and `releasedAt`), which the store otherwise sets to the current time, and records
 * their run periods (apply mode) as the status refresh would. Returns the ids by service name.
 */
export async function seedUsageServices(options: {
  store: DatabaseGpuStore;
  knex: Knex;
  platform: Platform;
  services: SeededService[];
}): Promise<Record<string, string>> {
  const { store, knex, platform, services } = options;
  const prices = poolPrices(platform);
  for (const team of new Set(services.map(s => s.team))) {
    await store.putQuota({
      team,
      quota: {
        pools: Object.fromEntries(platform.pools.map(p => [p.name, 1000])),
        monthlyBudgetMicros: 1_000_000 * 1_000_000,
      },
      actor: 'user:default/admin',
    });
  }
  const ids: Record<string, string> = {};
  for (const s of services) {
    const replicas = s.replicas ?? 1;
    const result = await store.createServiceWithReservation({
      name: s.name,
      team: s.team,
      namespace: s.namespace,
      environment: s.environment,
      tier: s.tier,
      pool: s.pool,
      request: {
        name: s.name,
        team: s.team,
        namespace: s.namespace,
        model: s.model ?? 'llama-3.1-8b',
        ...(s.dtype ? { dtype: s.dtype } : {}),
        ...(s.latencyBudget ? { latencyBudget: s.latencyBudget } : {}),
        runtime: 'vllm',
        maxModelLen: s.maxModelLen ?? 8192,
        concurrency: 16,
        replicas,
        environment: s.environment,
        tier: s.tier,
        pool: s.pool,
      },
      placement: {
        tier: s.tier,
        pool: s.pool,
        ...(s.migProfile ? { migProfile: s.migProfile } : {}),
        gpusPerReplica:
          s.tier === 'dedicated' ? s.gpuEquivalents / replicas : 1,
      },
      mode: s.mode ?? 'apply',
      reservation: {
        gpuEquivalents: s.gpuEquivalents,
        monthlyCostMicros: pooledCost(
          prices.get(s.pool)!,
          s.gpuEquivalents,
          platform.hoursPerMonth,
        ),
      },
      policy: { whenOverQuota: 'reject' },
      actor: 'user:default/alice',
    });
    ids[s.name] = result.service.id;
    await knex('services')
      .where({ id: result.service.id })
      .update({ status: s.releasedAt ? 'deleted' : 'ready' });
    await knex('reservations')
      .where({ id: result.reservation.id })
      .update({
        held_at: new Date(s.heldAt),
        ...(s.releasedAt
          ? { state: 'released', released_at: new Date(s.releasedAt) }
          : {}),
      });
    if ((s.mode ?? 'apply') !== 'apply') continue;
    const runs = s.runs ?? [{ startedAt: s.heldAt, stoppedAt: s.releasedAt }];
    for (const run of runs) {
      await knex('service_run_periods').insert({
        service_id: result.service.id,
        started_at: new Date(run.startedAt),
        started_basis: 'deployment-available',
        stopped_at: run.stoppedAt ? new Date(run.stoppedAt) : null,
        stop_reason: run.stoppedAt ? 'torn down' : null,
      });
    }
  }
  return ids;
}
