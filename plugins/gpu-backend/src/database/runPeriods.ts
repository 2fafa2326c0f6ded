/**
 * When each service's workload ran, as its cluster said (table `service_run_periods`, migration
 * 20261201140000_service_run_periods): what allocation cost accrues over in apply mode. At most one period of a
 * service is open; every write locks the service row first.
 */
import { Knex } from 'knex';
import { toIso } from './rows';
import { lockService } from './services';
import { ServiceStatus } from './types';

/**
 * Where a period's start comes from: `deployment-available` (the Deployment's `Available` condition turned true
 * then), `observed` (the time the cluster was read and said it runs), `reservation` (recorded before run periods
 * existed: the held time counts as running).
 */
export type RunStartBasis = 'deployment-available' | 'observed' | 'reservation';

/** One period in which a service's workload ran. */
export interface RunPeriod {
  serviceId: string;
  startedAt: string;
  startedBasis: RunStartBasis;
  /** Absent while it runs. */
  stoppedAt?: string;
  stopReason?: string;
}

interface RunPeriodRow {
  id: number;
  service_id: string;
  started_at: Date | number | string;
  started_basis: string;
  stopped_at: Date | number | string | null;
  stop_reason: string | null;
}

const TABLE = 'service_run_periods';

/** Statuses in which a service's workload may run; any other status ends its run. */
export const RUNNABLE_STATUSES: ServiceStatus[] = [
  'applying',
  'starting',
  'ready',
];

/** SQLite and PostgreSQL limit bound parameters; keep `IN` lists below both. */
const CHUNK = 500;

function toRunPeriod(row: RunPeriodRow): RunPeriod {
  return {
    serviceId: row.service_id,
    startedAt: toIso(row.started_at),
    startedBasis: row.started_basis as RunStartBasis,
    ...(row.stopped_at !== null ? { stoppedAt: toIso(row.stopped_at) } : {}),
    ...(row.stop_reason !== null ? { stopReason: row.stop_reason } : {}),
  };
}

/** Run periods of the services, oldest first, by service id. */
export async function listRunPeriods(
  db: Knex,
  serviceIds: string[],
): Promise<Map<string, RunPeriod[]>> {
  const result = new Map<string, RunPeriod[]>();
  for (let i = 0; i < serviceIds.length; i += CHUNK) {
    const rows = await db<RunPeriodRow>(TABLE)
      .whereIn('service_id', serviceIds.slice(i, i + CHUNK))
      .orderBy([{ column: 'started_at' }, { column: 'id' }]);
    for (const row of rows) {
      const period = toRunPeriod(row);
      const list = result.get(period.serviceId);
      if (list) list.push(period);
      else result.set(period.serviceId, [period]);
    }
  }
  return result;
}

/**
 * Ends the service's open run period at `at` (not before it started), with why; nothing when none is open. Called in
 * the transaction that moves the service out of the {@link RUNNABLE_STATUSES} (teardown, failure), with its row
 * locked.
 */
export async function closeRunPeriod(
  tx: Knex.Transaction,
  serviceId: string,
  at: Date,
  reason: string,
): Promise<boolean> {
  const open = await tx<RunPeriodRow>(TABLE)
    .where({ service_id: serviceId })
    .whereNull('stopped_at')
    .first();
  if (!open) return false;
  const started = Date.parse(toIso(open.started_at));
  await tx<RunPeriodRow>(TABLE)
    .where({ id: open.id })
    .update({
      stopped_at: new Date(Math.max(started, at.getTime())) as never,
      stop_reason: reason.slice(0, 1000),
    });
  return true;
}

/** What the cluster said about whether a service's workload runs. */
export type RunObservation =
  | { running: true; since: Date; basis: 'deployment-available' | 'observed' }
  | { running: false; since: Date; reason: string };

/** Outcome of {@link RunPeriodStore.record}. */
export type RunRecord = 'started' | 'stopped' | 'unchanged' | 'superseded';

/** Writes and reads run periods (the status refresh writes, cost reads). */
export class RunPeriodStore {
  constructor(private readonly db: Knex) {}

  /** Run periods of the services, oldest first, by service id. */
  list(serviceIds: string[]): Promise<Map<string, RunPeriod[]>> {
    return listRunPeriods(this.db, serviceIds);
  }

  /**
   * Records what the cluster said about the service as of version `expected` of it: opens a period when it runs and
   * none is open (never starting before the previous period stopped), closes the open one when it does not. Nothing
   * is written (`superseded`) when the service was written since, or is not in a {@link RUNNABLE_STATUSES} status
   * (torn down meanwhile): the next refresh decides from the new version.
   */
  async record(
    expected: { id: string; updatedAt: string },
    observation: RunObservation,
  ): Promise<RunRecord> {
    return this.db.transaction(async tx => {
      const service = await lockService(tx, expected.id);
      if (
        service.updatedAt !== expected.updatedAt ||
        !RUNNABLE_STATUSES.includes(service.status)
      ) {
        return 'superseded';
      }
      const periods = await tx<RunPeriodRow>(TABLE)
        .where({ service_id: service.id })
        .orderBy([
          { column: 'started_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .limit(1);
      const last = periods[0] ? toRunPeriod(periods[0]) : undefined;
      const open = last && !last.stoppedAt ? last : undefined;
      if (observation.running) {
        if (open) return 'unchanged';
        const floor = last?.stoppedAt ? Date.parse(last.stoppedAt) : -Infinity;
        const since = observation.since.getTime();
        await tx(TABLE).insert({
          service_id: service.id,
          started_at: new Date(Math.max(floor, since)),
          started_basis: observation.basis,
          stopped_at: null,
          stop_reason: null,
        });
        return 'started';
      }
      if (!open) return 'unchanged';
      await closeRunPeriod(
        tx,
        service.id,
        observation.since,
        observation.reason,
      );
      return 'stopped';
    });
  }
}
