import {
  intervalOverlapMs as overlapMs,
  TimeInterval,
  unionOfIntervals as union,
} from '@gpu-platform/backstage-plugin-gpu-common';
import type {
  AccrualBasis,
  ClusterMode,
  WorkloadRunState,
} from '@gpu-platform/backstage-plugin-gpu-common';
import type { RunPeriod } from '../database/runPeriods';
import type { ReservationRecord } from '../database/types';

/** A time interval `[from, to)` in epoch milliseconds. */
export type Interval = TimeInterval;

// The interval arithmetic lives in gpu-common's cost module, with the allocation arithmetic that uses it.
export { overlapMs, union };

/** Spend at any time a reservation is held. */
export const ALWAYS: readonly Interval[] = [[-Infinity, Infinity]];

/** Never spend: held time is reserved only. */
export const NEVER: readonly Interval[] = [];

/** What a service's allocation cost accrues over, from its mode (see {@link AccrualBasis}). */
export function accrualBasisOf(mode: ClusterMode): AccrualBasis {
  switch (mode) {
    case 'apply':
      return 'cluster-status';
    case 'gitops':
      return 'reservation';
    default:
      return 'dry-run';
  }
}

/**
 * When a held reservation of the service counts as spend, as sorted disjoint intervals: while it ran
 * (`cluster-status`, an open period runs on), always (`reservation`), never (`dry-run`).
 */
export function spendingIntervals(
  basis: AccrualBasis,
  runs: readonly RunPeriod[],
): readonly Interval[] {
  if (basis === 'reservation') return ALWAYS;
  if (basis === 'dry-run') return NEVER;
  return union(
    runs.map(r => [
      Date.parse(r.startedAt),
      r.stoppedAt ? Date.parse(r.stoppedAt) : Infinity,
    ]),
  );
}

/**
 * What the rest of the month is projected over: a held reservation is taken to run (a pending workload is admitted
 * some time, a running one keeps running), except in a dry run.
 */
export function projectedSpending(basis: AccrualBasis): readonly Interval[] {
  return basis === 'dry-run' ? NEVER : ALWAYS;
}

/**
 * Whether a service in apply mode runs at `atMs` and since when: the start of the run it is in, else when the last
 * run before stopped or, if it has not run since, when its current reservation was held.
 */
export function runStateAt(
  runs: readonly RunPeriod[],
  reservations: readonly ReservationRecord[],
  atMs: number,
): WorkloadRunState {
  const started = runs.filter(r => Date.parse(r.startedAt) <= atMs);
  const current = started.find(
    r => !r.stoppedAt || Date.parse(r.stoppedAt) > atMs,
  );
  if (current) return { running: true, since: current.startedAt };
  const lastStop = Math.max(
    -Infinity,
    ...started.map(r => Date.parse(r.stoppedAt!)),
  );
  const heldSince = Math.max(
    -Infinity,
    ...reservations
      .filter(
        r =>
          r.heldAt &&
          Date.parse(r.heldAt) <= atMs &&
          (!r.releasedAt || Date.parse(r.releasedAt) > atMs),
      )
      .map(r => Date.parse(r.heldAt!)),
  );
  const since = Math.max(lastStop, heldSince);
  return Number.isFinite(since)
    ? { running: false, since: new Date(since).toISOString() }
    : { running: false };
}
