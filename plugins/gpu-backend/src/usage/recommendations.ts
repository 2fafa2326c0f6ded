import {
  formatUsd,
  gpuEquivalentsOf,
  latencyBudgetStatus,
  Platform,
  PoolPrice,
  Recommendation,
  scaleUsd,
  SharingTier,
  Slice,
  unitsCost,
  UsdMicros,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { ServiceRecord } from '../database';
import { Attribution } from './attribution';
import { modelFit } from './modelFit';
import { poolSlices } from './serviceSlice';

/** Memory above this share of the slice: out-of-memory risk. */
export const MEMORY_PRESSURE = 0.95;
/** Right-size when the peak memory fits this many times over in a smaller slice... */
export const MEMORY_HEADROOM = 1.1;
/** ...and the service is less busy than this. */
export const LOW_ACTIVITY = 0.5;
/** The idle-GPU alert: below 20% utilisation for 30 minutes on a production card. */
export const IDLE_UTILISATION = 0.2;
/** Environments where idle GPUs are flagged. */
const PRODUCTION = 'production';

const GB = 1e9;

/** Tiers whose GPU is shared with other services' work (no isolation of compute). */
const SHARED_TIERS: ReadonlySet<SharingTier> = new Set(['mps', 'time-sliced']);
const isShared = (tier: SharingTier) => SHARED_TIERS.has(tier);

/** A step at which the service used less than this part of its share is near idle. */
export const NEAR_IDLE_STEP = 0.1;
/** Fewer steps measured than this: no verdict on the shape of the traffic. */
export const MIN_TRAFFIC_STEPS = 12;
/** Bursty: near idle at this share of the measured steps or more... */
export const BURSTY_IDLE_SHARE = 0.5;
/** ...its busiest step using at least this part of its share (its bursts are held back by the share)... */
export const BURST_PEAK = 0.8;
/** ...and at most this many requests running at once while it serves. */
export const BURSTY_MAX_RUNNING = 1.5;
/** Steady: near idle at no more than this share of the measured steps... */
export const STEADY_IDLE_SHARE = 0.1;
/** ...its mean step at least this part of its busiest one... */
export const STEADY_MEAN_TO_PEAK = 0.67;
/** ...and at least this many requests running at once while it serves. */
export const STEADY_MIN_RUNNING = 2;
/**
 * A service with a latency budget is advised onto MPS (which slows a single request down: its kernels run beside
 * the other pods') only when its measured p95 is at most this part of the budget.
 */
export const MPS_BUDGET_HEADROOM = 0.8;

/** Seconds as the card writes a latency: at most two decimals, no trailing zeros (`2 s`, `4.2 s`). */
const seconds = (value: number) => `${Number(value.toFixed(2))} s`;

/** Monthly allocation of `replicas` replicas of `slice` on its pool, from the slice's GPU units. */
function monthly(
  prices: ReadonlyMap<string, PoolPrice>,
  slice: Slice,
  replicas: number,
  hoursPerMonth: number,
): UsdMicros | undefined {
  const price = prices.get(slice.pool);
  return price
    ? unitsCost(price, slice.gpuUnits * replicas, hoursPerMonth)
    : undefined;
}

/** Slices of the pools of the same capacity type, in tiers the service's environment allows. */
function candidateSlices(platform: Platform, service: ServiceRecord): Slice[] {
  const environment = platform.environments.find(
    e => e.name === service.environment,
  );
  const allowed = new Set(environment?.allowedTiers ?? []);
  const current = platform.pools.find(p => p.name === service.pool);
  // Never propose spot capacity to an on-demand service: it can be taken away.
  return platform.pools
    .filter(pool => !current || pool.capacityType === current.capacityType)
    .flatMap(pool => poolSlices(platform, pool.name))
    .filter(slice => allowed.has(slice.tier));
}

const percent = (value: number) => `${Math.round(value * 100)}%`;

/** `An MPS share of l4-mps`, `A time-sliced share of t4-timeslice`: a shared slice at the start of a sentence. */
const shareOf = (slice: Slice) =>
  `${slice.tier === 'mps' ? 'An MPS' : 'A time-sliced'} share of ${slice.pool}`;

/** The measured shape of a shared-tier service's traffic over the window, when there is enough of it to judge. */
interface TrafficShape {
  steps: number;
  idleStepShare: number;
  meanStepUtilisation: number;
  peakStepUtilisation: number;
  runningWhileServing: number;
}

/**
 * The shape of the traffic from what the window measured: the service's utilisation at each step (its share of the
 * device's busy time, of the share it holds) and the requests its pods ran at once while serving. Undefined when
 * anything is missing: no step series, too few steps, no running-requests gauge, or a step split that is not the
 * service's own (`apportioned-evenly`: the device's busy time split evenly says nothing of this service's bursts).
 */
function trafficShape(usage: Attribution): TrafficShape | undefined {
  const series = usage.utilisationSeries ?? [];
  const running = usage.runningWhileServing;
  if (
    !usage.utilisation ||
    usage.utilisation.method === 'apportioned-evenly' ||
    series.length < MIN_TRAFFIC_STEPS ||
    running === undefined ||
    !Number.isFinite(running)
  )
    return undefined;
  const values = series.map(p => p.value).filter(v => Number.isFinite(v));
  if (values.length < MIN_TRAFFIC_STEPS) return undefined;
  return {
    steps: values.length,
    idleStepShare:
      values.filter(v => v < NEAR_IDLE_STEP).length / values.length,
    meanStepUtilisation: values.reduce((a, b) => a + b, 0) / values.length,
    peakStepUtilisation: Math.max(...values),
    runningWhileServing: running,
  };
}

/** Which sharing mode the shape points to, if it is clear; undefined when it is neither clearly bursty nor steady. */
function sharingVerdict(
  shape: TrafficShape,
): 'bursty-traffic' | 'steady-concurrent-traffic' | undefined {
  if (
    shape.idleStepShare >= BURSTY_IDLE_SHARE &&
    shape.peakStepUtilisation >= BURST_PEAK &&
    shape.runningWhileServing <= BURSTY_MAX_RUNNING
  )
    return 'bursty-traffic';
  if (
    shape.idleStepShare <= STEADY_IDLE_SHARE &&
    shape.peakStepUtilisation > 0 &&
    shape.meanStepUtilisation >=
      STEADY_MEAN_TO_PEAK * shape.peakStepUtilisation &&
    shape.runningWhileServing >= STEADY_MIN_RUNNING
  )
    return 'steady-concurrent-traffic';
  return undefined;
}

function describe(slice: Slice): string {
  if (slice.tier === 'mig') return `MIG ${slice.migProfile} on ${slice.pool}`;
  if (slice.tier === 'dedicated')
    return `${slice.gpusPerReplica} dedicated GPU${
      slice.gpusPerReplica > 1 ? 's' : ''
    } on ${slice.pool}`;
  return `a ${slice.tier} share on ${slice.pool}`;
}

/**
 * Recommendations for one service from its window's usage:
 *
 * - `move-up` (`latency-budget-broken`) when the service states a latency budget, runs on a shared tier (MPS or
 *   time-sliced) and the window's measured p95 end-to-end latency (`usage.latency.p95Seconds`, the figure the usage
 *   views compare with the budget) is above it: the cheapest isolated slice the model fits, a MIG slice or dedicated
 *   GPUs on any pool of the same capacity type the environment allows (a whole L4 can cost less than the MIG profile
 *   that fits), larger than the current slice too when memory is also above 95%;
 * - `move-up` (`memory-pressure`) when peak memory passes 95% of the slice (cheapest larger slice allowed in the
 *   environment that the model fits; never a shared one for a service over its latency budget);
 * - `right-size` when peak memory x 1.1 fits a cheaper slice and utilisation is below 50%: the cheapest such slice the
 *   model fits as the quote fits it (dtype, max model length, concurrency), or, when the model fits none of them, an
 *   `info` without a target saying so;
 * - `idle` in production when utilisation stayed below 20% for the last 30 minutes;
 * - `scale-to-zero` when no tokens were generated and nothing is queued or running over the window;
 * - `switch-sharing` for a vLLM service on a shared tier when its measured traffic clearly suits the other sharing mode
 *   (`trafficShape`: its utilisation at each step of the window, of the share it holds, and the requests its pods
 *   ran at once while serving, `vllm:num_requests_running`):
 *   - MPS to time-sliced (`bursty-traffic`): near idle (below 10% of its share) at half the steps or more, its busiest
 *     step using 80% of its share or more, and at most 1.5 requests running at once while serving: under MPS a burst
 *     is held to its fixed part of the GPU's threads, time-slicing gives it the whole GPU in its turn;
 *   - time-sliced to MPS (`steady-concurrent-traffic`): near idle at no more than a tenth of the steps, its mean step
 *     at least two thirds of its busiest, and 2 or more requests running at once while serving: time-slicing switches
 *     the GPU between the pods sharing it, MPS runs their kernels concurrently. With a latency budget, only when the
 *     measured p95 is within 80% of it (MPS slows a single request down);
 *   the target is the cheapest slice of the other tier, on a pool of the same capacity type the environment allows,
 *   that the model fits and the measured peak memory (x 1.1) fits. Nothing is advised when any figure is missing (no
 *   step series, fewer than 12 steps, no running-requests gauge, e.g. Ollama, or a budget without a measured p95),
 *   when the device's busy time could only be split evenly (the steps are then not the service's own), when no pool
 *   of the other tier is allowed or fits, nor beside a `move-up`. A `right-size` to the same tier is left out: the
 *   switch proposes that move with its reason.
 *
 * A service over its latency budget is never advised down to a shared tier (right-size), nor told to share its card
 * (idle). The latency read is the one the window's measurement already made for all the services it measured (one
 * `vllm:e2e_request_latency_seconds` quantile query for all of them in the overview): no query of its own.
 *
 * Each carries the monthly allocation saving computed from the pools' prices (negative for move-up).
 */
export function recommend(options: {
  platform: Platform;
  prices: ReadonlyMap<string, PoolPrice>;
  service: ServiceRecord;
  slice: Slice | undefined;
  usage: Attribution | undefined;
  /** Monthly allocation at the current holding. */
  monthlyAllocationMicros: UsdMicros;
  windowSeconds: number;
}): Recommendation[] {
  const {
    platform,
    prices,
    service,
    slice,
    usage,
    monthlyAllocationMicros,
    windowSeconds,
  } = options;
  if (!usage || !slice || monthlyAllocationMicros === 0) return [];
  const replicas = Math.max(1, service.request.replicas);
  const base = {
    serviceId: service.id,
    serviceName: service.name,
    team: service.team,
  };
  const result: Recommendation[] = [];
  const hours = platform.hoursPerMonth;
  const current =
    monthly(prices, slice, replicas, hours) ?? monthlyAllocationMicros;
  const utilisation = usage.utilisation?.value;
  const peakPerReplica =
    usage.peakMemoryBytes !== undefined
      ? usage.peakMemoryBytes / replicas
      : undefined;
  // The same verdict as the usage card's (`latencyBudgetStatus`): only a finite measured p95 above it is `over`.
  const budget = service.request.latencyBudget;
  const latency = budget
    ? latencyBudgetStatus(budget, usage.latency?.p95Seconds, 'available')
    : undefined;
  const overBudget = latency?.state === 'over';
  const evidence = {
    ...(utilisation !== undefined ? { utilisation } : {}),
    ...(usage.peakMemoryBytes !== undefined
      ? { peakMemoryBytes: usage.peakMemoryBytes }
      : {}),
    allocatedMemoryBytes: slice.memoryBytes * replicas,
    ...(usage.generatedTokens !== undefined
      ? { generatedTokens: usage.generatedTokens }
      : {}),
    ...(latency?.measuredP95Seconds !== undefined
      ? {
          latencyP95Seconds: latency.measuredP95Seconds,
          latencyBudgetP95Seconds: latency.budgetP95Seconds,
        }
      : {}),
  };
  const priced = candidateSlices(platform, service)
    // Over its latency budget, a service is never advised onto a shared tier.
    .filter(candidate => !overBudget || !isShared(candidate.tier))
    .map(candidate => ({
      candidate,
      cost: monthly(prices, candidate, replicas, hours),
    }))
    .filter(
      (c): c is { candidate: Slice; cost: UsdMicros } => c.cost !== undefined,
    )
    .sort(
      (a, b) =>
        a.cost - b.cost || a.candidate.memoryBytes - b.candidate.memoryBytes,
    );
  const target = (candidate: Slice) => ({
    tier: candidate.tier,
    pool: candidate.pool,
    ...(candidate.migProfile ? { migProfile: candidate.migProfile } : {}),
    gpuEquivalents: gpuEquivalentsOf(candidate.gpuUnits * replicas),
  });

  const memoryPressure =
    peakPerReplica !== undefined &&
    peakPerReplica > MEMORY_PRESSURE * slice.memoryBytes;

  const switchSharing = ((): Recommendation | undefined => {
    if (!isShared(slice.tier) || overBudget || memoryPressure) return undefined;
    const shape = trafficShape(usage);
    const verdict = shape && sharingVerdict(shape);
    if (!shape || !verdict) return undefined;
    const other: SharingTier = slice.tier === 'mps' ? 'time-sliced' : 'mps';
    if (
      (verdict === 'bursty-traffic') !== (slice.tier === 'mps') ||
      (verdict === 'steady-concurrent-traffic' &&
        latency &&
        (latency.measuredP95Seconds === undefined ||
          latency.measuredP95Seconds >
            MPS_BUDGET_HEADROOM * latency.budgetP95Seconds))
    )
      return undefined;
    const candidates = priced.filter(
      c =>
        c.candidate.tier === other &&
        (peakPerReplica === undefined ||
          c.candidate.memoryBytes >= peakPerReplica * MEMORY_HEADROOM),
    );
    if (candidates.length === 0) return undefined;
    const fit = modelFit(platform, service);
    const chosen = candidates.find(c => fit.of(c.candidate)?.fits);
    if (!chosen) return undefined;
    const replicasOfShare = Math.max(1, Math.round(1 / slice.gpuShare));
    const costText =
      chosen.cost <= current
        ? `costs ${formatUsd(current - chosen.cost)} less`
        : `costs ${formatUsd(chosen.cost - current)} more`;
    const measured = `${shape.steps} steps measured`;
    const running = `${shape.runningWhileServing.toFixed(
      1,
    )} requests running at once while it served`;
    const bursty = verdict === 'bursty-traffic';
    return {
      ...base,
      kind: 'switch-sharing',
      reason: verdict,
      severity: 'info',
      title: bursty
        ? 'Bursty traffic: time-slicing fits it better than MPS'
        : 'Steady concurrent traffic: MPS fits it better than time-slicing',
      message: bursty
        ? `Near idle (below ${percent(
            NEAR_IDLE_STEP,
          )} of its share) at ${percent(
            shape.idleStepShare,
          )} of the ${measured}, its busiest step at ${percent(
            shape.peakStepUtilisation,
          )} of its share, ${running}: under MPS each burst gets 1/${replicasOfShare} of the GPU's threads, while time-slicing gives a pod the whole GPU in its turn. ${shareOf(
            chosen.candidate,
          )} ${costText} per month. Time-slicing isolates neither memory nor faults between the pods sharing the GPU.`
        : `Busy at ${percent(
            1 - shape.idleStepShare,
          )} of the ${measured}, steadily (mean ${percent(
            shape.meanStepUtilisation,
          )} of its share, busiest step ${percent(
            shape.peakStepUtilisation,
          )}), ${running}: time-slicing switches the GPU between the pods sharing it, one at a time, while MPS runs their kernels concurrently. ${shareOf(
            chosen.candidate,
          )} ${costText} per month. MPS caps each pod's memory and threads at its share, and a pod that faults can affect the others on the GPU.${
            latency?.measuredP95Seconds !== undefined
              ? ` Measured p95 ${seconds(
                  latency.measuredP95Seconds,
                )} leaves room within the ${seconds(
                  latency.budgetP95Seconds,
                )} budget.`
              : ''
          }`,
      monthlySavingMicros: current - chosen.cost,
      target: target(chosen.candidate),
      evidence: {
        ...evidence,
        measuredSteps: shape.steps,
        idleStepShare: shape.idleStepShare,
        meanStepUtilisation: shape.meanStepUtilisation,
        peakStepUtilisation: shape.peakStepUtilisation,
        runningRequestsWhileServing: shape.runningWhileServing,
      },
    };
  })();

  if (latency?.state === 'over' && isShared(slice.tier)) {
    const fit = modelFit(platform, service);
    const fitting = priced.filter(
      c =>
        (!memoryPressure ||
          c.candidate.memoryBytes > slice.memoryBytes * 1.0001) &&
        fit.of(c.candidate)?.fits,
    );
    // `priced` holds no shared slice over budget: the cheapest isolated slice (MIG or dedicated) the model fits.
    const isolated = fitting[0];
    result.push({
      ...base,
      kind: 'move-up',
      reason: 'latency-budget-broken',
      severity: memoryPressure ? 'critical' : 'warning',
      title: 'Latency budget broken on a shared GPU: move to an isolated slice',
      message: `Measured p95 end-to-end latency ${seconds(
        latency.measuredP95Seconds ?? NaN,
      )} over the window is above the ${seconds(
        latency.budgetP95Seconds,
      )} budget on ${
        slice.tier === 'mps' ? 'an MPS' : 'a time-sliced'
      } share of ${
        slice.pool
      }, where other services' work delays its requests.${
        memoryPressure
          ? ` Peak memory ${(peakPerReplica / GB).toFixed(1)} GB of ${(
              slice.memoryBytes / GB
            ).toFixed(1)} GB per replica is also above ${
              MEMORY_PRESSURE * 100
            }%.`
          : ''
      }${
        isolated
          ? ` ${describe(isolated.candidate)} ${
              isolated.cost >= current
                ? `costs ${formatUsd(isolated.cost - current)} more`
                : `costs ${formatUsd(current - isolated.cost)} less`
            } per month.`
          : ` No MIG slice or dedicated GPU allowed in ${service.environment} fits the model.`
      }`,
      monthlySavingMicros: isolated ? current - isolated.cost : 0,
      ...(isolated ? { target: target(isolated.candidate) } : {}),
      evidence,
    });
  } else if (memoryPressure) {
    const fit = modelFit(platform, service);
    const larger = priced.find(
      c =>
        c.candidate.memoryBytes > slice.memoryBytes * 1.0001 &&
        fit.of(c.candidate)?.fits,
    );
    result.push({
      ...base,
      kind: 'move-up',
      reason: 'memory-pressure',
      severity: 'critical',
      title: 'Memory nearly full: move to a larger slice',
      message: `Peak memory ${(peakPerReplica / GB).toFixed(1)} GB of ${(
        slice.memoryBytes / GB
      ).toFixed(1)} GB per replica (above ${
        MEMORY_PRESSURE * 100
      }%): out-of-memory errors are likely.${
        larger
          ? ` ${describe(larger.candidate)} costs ${formatUsd(
              larger.cost - current,
            )} more per month.`
          : ' No larger slice allowed in this environment fits the model.'
      }`,
      monthlySavingMicros: larger ? current - larger.cost : 0,
      ...(larger ? { target: target(larger.candidate) } : {}),
      evidence,
    });
  } else if (
    peakPerReplica !== undefined &&
    utilisation !== undefined &&
    utilisation < LOW_ACTIVITY
  ) {
    // Cheaper slices the observed memory would fit; of those only one the model fits is proposed.
    const cheaper = priced.filter(
      c =>
        c.cost < current &&
        c.candidate.memoryBytes >= peakPerReplica * MEMORY_HEADROOM &&
        !(
          c.candidate.pool === slice.pool &&
          c.candidate.migProfile === slice.migProfile &&
          c.candidate.gpusPerReplica === slice.gpusPerReplica
        ),
    );
    const fit = cheaper.length ? modelFit(platform, service) : undefined;
    const smaller = cheaper.find(c => fit?.of(c.candidate)?.fits);
    const usesText = `Uses ${(peakPerReplica / GB).toFixed(1)} GB of ${(
      slice.memoryBytes / GB
    ).toFixed(1)} GB per replica at ${Math.round(
      utilisation * 100,
    )}% utilisation`;
    if (smaller && fit) {
      result.push({
        ...base,
        kind: 'right-size',
        severity: 'warning',
        title: `Right-size to ${describe(smaller.candidate)}`,
        message: `${usesText}; ${describe(smaller.candidate)} (${(
          smaller.candidate.memoryBytes / GB
        ).toFixed(1)} GB) fits ${fit.sizing} and saves ${formatUsd(
          current - smaller.cost,
        )} per month.`,
        monthlySavingMicros: current - smaller.cost,
        target: target(smaller.candidate),
        evidence,
      });
    } else if (fit) {
      const closest = fit.error ?? fit.of(cheaper[0].candidate)?.reason;
      result.push({
        ...base,
        kind: 'right-size',
        severity: 'info',
        title: 'No smaller slice fits the model',
        message: `${usesText}, but no cheaper slice allowed in ${
          service.environment
        } fits ${fit.sizing}${
          closest ? ` (${describe(cheaper[0].candidate)}: ${closest})` : ''
        }.`,
        monthlySavingMicros: 0,
        evidence,
      });
    }
  }

  if (
    service.environment === PRODUCTION &&
    usage.recentPeakUtilisation !== undefined &&
    usage.recentPeakUtilisation < IDLE_UTILISATION &&
    windowSeconds >= 1800
  ) {
    const idleShare = 1 - (utilisation ?? usage.recentPeakUtilisation);
    result.push({
      ...base,
      kind: 'idle',
      severity: 'warning',
      title: 'Production GPU idle',
      message: `Utilisation stayed below ${
        IDLE_UTILISATION * 100
      }% for the last 30 minutes. Idle allocation costs about ${formatUsd(
        scaleUsd(current, [idleShare]),
      )} per month: ${
        overBudget
          ? 'move batch work onto it (not a shared tier: its p95 latency is over its budget).'
          : 'share the card or move batch work onto it.'
      }`,
      monthlySavingMicros: scaleUsd(current, [idleShare]),
      evidence,
    });
  }

  const quiet =
    usage.generatedTokens === 0 &&
    (usage.running ?? 0) === 0 &&
    (usage.waiting ?? 0) === 0;
  if (
    quiet &&
    windowSeconds >= 3600 &&
    service.request.autoscaling?.minReplicas !== 0
  ) {
    result.push({
      ...base,
      kind: 'scale-to-zero',
      severity: 'info',
      title: 'No traffic: scale to zero',
      message: `No tokens were generated and no request was running or waiting in the window. Autoscaling with KEDA and minReplicas 0 would stop paying for the GPU while idle (up to ${formatUsd(
        current,
      )} per month).`,
      monthlySavingMicros: current,
      evidence,
    });
  }
  if (switchSharing) {
    // The switch proposes the move to the other tier with its reason: a right-size to the same tier would repeat it.
    return [
      ...result.filter(
        r =>
          !(
            r.kind === 'right-size' &&
            r.target?.tier === switchSharing.target?.tier
          ),
      ),
      switchSharing,
    ];
  }
  return result;
}
