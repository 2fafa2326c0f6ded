import { ConflictError } from '@backstage/errors';
import {
  formatGpuUnits,
  GPU_UNITS_PER_EQUIVALENT,
  OVER_BUDGET_THIS_MONTH,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { Knex } from 'knex';
import { randomUUID } from 'node:crypto';
import { assess, GovernanceContext, OVER_BUDGET } from '../admission';
import { readAdmissionSnapshot } from './admissionSnapshot';
import { writeAuditEvent } from './audit';
import { lockPool } from './governance';
import { lockLedger, lockTeam, setReservationState } from './ledger';
import {
  BatchJobRow,
  ReservationRow,
  toBatchJobRecord,
  toReservationRecord,
} from './rows';
import {
  BatchJobRecord,
  BatchJobReservation,
  ReserveBatchJobInput,
} from './types';

/**
 * Weighs a batch job against what its team holds on the pool now, under the same locks a service's create takes (the
 * team's quota row, then the pool): the pods it may run at once are what the team's free quota there holds, at most
 * its parallelism; fewer than `minParallelism` is a conflict, as is a month's budget the reservation would exceed. In
 * apply and GitOps mode it then records the Job and its held reservation (audited as `batch-job.reserve` and
 * `reservation.hold`); a GitOps one is released by the release sweep from what the read-only reader of its cluster
 * reads (see `BatchJobs.releaseFinished`). A dry run records nothing.
 */
export async function reserveBatchJobInTransaction(
  tx: Knex.Transaction,
  context: GovernanceContext,
  input: ReserveBatchJobInput,
): Promise<BatchJobReservation> {
  const ledger = await lockLedger(tx, input.team, input.pool);
  await lockPool(tx, input.pool);
  const now = context.now();
  const snapshot = await readAdmissionSnapshot(tx, context, { ledger, now });
  const nominal = snapshot.ledger.nominalGpuUnits ?? 0;
  const free = Math.max(0, nominal - snapshot.ledger.heldGpuUnits);
  const unitsPerPod = input.gpusPerPod * GPU_UNITS_PER_EQUIVALENT;
  const podsAtOnce = Math.min(
    input.parallelism,
    Math.floor(free / unitsPerPod),
  );
  if (podsAtOnce < input.minParallelism) {
    throw new ConflictError(
      `Team ${input.team} has ${formatGpuUnits(free)} of its ${formatGpuUnits(
        nominal,
      )} GPUs on ${
        input.pool
      } free now (services and batch jobs hold the rest): ` +
        `${podsAtOnce} pod${podsAtOnce === 1 ? '' : 's'} of ${
          input.gpusPerPod
        } GPU${input.gpusPerPod === 1 ? '' : 's'}, fewer than the ${
          input.minParallelism
        } the Job needs at least (minParallelism); submit it again once some are released, or lower minParallelism`,
    );
  }
  const gpuUnits = podsAtOnce * unitsPerPod;
  const monthlyCostMicros =
    input.monthlyCostMicrosPerGpu * podsAtOnce * input.gpusPerPod;
  const amounts = { gpuUnits, monthlyCostMicros };
  const budget = assess(context, snapshot, amounts, undefined).reasons.filter(
    r => r.code === OVER_BUDGET || r.code === OVER_BUDGET_THIS_MONTH,
  );
  if (budget.length > 0) {
    throw new ConflictError(
      `Batch job ${input.name} does not fit team ${
        input.team
      }'s budget: ${budget.map(r => r.message).join('; ')}`,
    );
  }
  if (input.mode === 'dry-run') {
    return { podsAtOnce, gpuUnits, monthlyCostMicros };
  }
  const jobRow: BatchJobRow = {
    id: input.id,
    name: input.name,
    namespace: input.namespace,
    team: input.team,
    environment: input.environment,
    pool: input.pool,
    cluster: input.cluster ?? null,
    mode: input.mode,
    pods_at_once: podsAtOnce,
    gpus_per_pod: input.gpusPerPod,
    state: 'active',
    submitted_by: input.actor,
    submitted_at: now,
    finished_at: null,
    finish_reason: null,
  };
  await tx<BatchJobRow>('batch_jobs').insert(jobRow);
  const batchJob = toBatchJobRecord(jobRow);
  await writeAuditEvent(tx, {
    actor: input.actor,
    action: 'batch-job.reserve',
    subjectType: 'batch-job',
    subjectId: input.id,
    team: input.team,
    after: { ...batchJob, gpuUnits, monthlyCostMicros },
  });
  const row: ReservationRow = {
    id: randomUUID(),
    service_id: null,
    batch_job_id: input.id,
    team: input.team,
    pool: input.pool,
    gpu_units: gpuUnits,
    monthly_cost_micros: monthlyCostMicros,
    state: 'held',
    created_at: now,
    held_at: now,
    released_at: null,
    mig_profile: null,
  };
  await tx<ReservationRow>('reservations').insert(row);
  const reservation = toReservationRecord(row);
  await writeAuditEvent(tx, {
    actor: input.actor,
    action: 'reservation.hold',
    subjectType: 'reservation',
    subjectId: reservation.id,
    team: input.team,
    after: reservation,
  });
  return { podsAtOnce, gpuUnits, monthlyCostMicros, batchJob, reservation };
}

/**
 * Releases what an active batch job holds and marks it finished (audited as `batch-job.release` and
 * `reservation.release`); `undefined` when it was finished already (a concurrent release won). With `rolledBack`
 * (its apply failed) the reservation is released as of when it was held: it never held GPUs, and costs nothing. With
 * `at` (when its cluster says the Job finished) it is released and finished as of then, never before it was held
 * nor after `now`.
 */
export async function releaseBatchJobInTransaction(
  tx: Knex.Transaction,
  input: {
    id: string;
    reason: string;
    actor: string;
    now: Date;
    rolledBack?: boolean;
    at?: Date;
  },
): Promise<BatchJobRecord | undefined> {
  const found = await tx<BatchJobRow>('batch_jobs')
    .where({ id: input.id })
    .first();
  if (!found || found.state !== 'active') return undefined;
  // The lock order of every ledger write: the team's quota row first.
  await lockTeam(tx, found.team);
  const held = (
    await tx<ReservationRow>('reservations')
      .where({ batch_job_id: input.id })
      .whereIn('state', ['held', 'pending'])
  ).map(toReservationRecord);
  // As of its finish time when its cluster says when that was: not before it was held, not in the future.
  const heldFrom = Math.max(
    0,
    ...held.map(r => (r.heldAt ? Date.parse(r.heldAt) : 0)),
  );
  const finishedAt = input.at
    ? new Date(
        Math.min(input.now.getTime(), Math.max(input.at.getTime(), heldFrom)),
      )
    : input.now;
  const changed = await tx<BatchJobRow>('batch_jobs')
    .where({ id: input.id, state: 'active' })
    .update({
      state: 'finished',
      finished_at: finishedAt,
      finish_reason: input.reason,
    });
  if (changed !== 1) return undefined;
  for (const reservation of held) {
    const releasedAt =
      input.rolledBack && reservation.heldAt
        ? new Date(reservation.heldAt)
        : finishedAt;
    await setReservationState(
      tx,
      reservation,
      'released',
      input.actor,
      releasedAt,
    );
  }
  const after = toBatchJobRecord(
    (await tx<BatchJobRow>('batch_jobs').where({ id: input.id }).first())!,
  );
  await writeAuditEvent(tx, {
    actor: input.actor,
    action: 'batch-job.release',
    subjectType: 'batch-job',
    subjectId: input.id,
    team: found.team,
    before: toBatchJobRecord(found),
    after: {
      ...after,
      releasedGpuUnits: held.reduce(
        (sum, r) =>
          sum + Math.round(r.gpuEquivalents * GPU_UNITS_PER_EQUIVALENT),
        0,
      ),
    },
  });
  return after;
}

/** Batch jobs whose reservation still counts, oldest first. */
export async function listActiveBatchJobs(db: Knex): Promise<BatchJobRecord[]> {
  const rows = await db<BatchJobRow>('batch_jobs')
    .where({ state: 'active' })
    .orderBy([
      { column: 'submitted_at', order: 'asc' },
      { column: 'id', order: 'asc' },
    ]);
  return rows.map(toBatchJobRecord);
}

/**
 * Batch jobs with the reservations they held at some point, optionally of one team: what the cost export and the
 * team's cost charge them for. With `overlapping`, only those whose reservation overlaps [from, to): submitted
 * before `to` and still active or finished after `from` (index `batch_jobs_finished_submitted_idx`); a job's
 * reservations are held from its submission at the earliest and released when it finishes at the latest, so none
 * of those left out held GPUs in the period.
 */
export async function listBatchJobAllocations(
  db: Knex,
  filter: { team?: string; overlapping?: { from: Date; to: Date } } = {},
): Promise<
  Array<{
    batchJob: BatchJobRecord;
    reservations: ReturnType<typeof toReservationRecord>[];
  }>
> {
  let jobs = db<BatchJobRow>('batch_jobs');
  if (filter.team) jobs = jobs.where({ team: filter.team });
  const period = filter.overlapping;
  if (period) {
    jobs = jobs
      .where(q =>
        q.whereNull('finished_at').orWhere('finished_at', '>', period.from),
      )
      .where('submitted_at', '<', period.to);
  }
  const rows = await jobs.orderBy(['team', 'name', 'id']);
  if (rows.length === 0) return [];
  const reservations = new Map<
    string,
    ReturnType<typeof toReservationRecord>[]
  >();
  const CHUNK = 500;
  for (let i = 0; i < rows.length; i += CHUNK) {
    const held = await db<ReservationRow>('reservations')
      .whereIn(
        'batch_job_id',
        rows.slice(i, i + CHUNK).map(r => r.id),
      )
      .whereNotNull('held_at');
    for (const row of held) {
      const list = reservations.get(row.batch_job_id!) ?? [];
      list.push(toReservationRecord(row));
      reservations.set(row.batch_job_id!, list);
    }
  }
  return rows.map(row => ({
    batchJob: toBatchJobRecord(row),
    reservations: reservations.get(row.id) ?? [],
  }));
}

/** The batch job of that id, if recorded. */
export async function readBatchJob(
  db: Knex,
  id: string,
): Promise<BatchJobRecord | undefined> {
  const row = await db<BatchJobRow>('batch_jobs').where({ id }).first();
  return row ? toBatchJobRecord(row) : undefined;
}
