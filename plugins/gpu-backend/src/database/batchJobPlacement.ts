import { GPU_UNITS_PER_EQUIVALENT } from '@gpu-platform/backstage-plugin-gpu-common';
import { Knex } from 'knex';
import { writeAuditEvent } from './audit';
import { lockTeam } from './ledger';
import {
  BatchJobRow,
  ReservationRow,
  toBatchJobRecord,
  toReservationRecord,
} from './rows';
import { BatchJobRecord } from './types';

/**
 * Records the MultiKueue worker cluster an active batch job runs on (its manager's Workload `status.clusterName`)
 * and moves what it holds to that worker's pool: the batch job's `pool` and its held reservations' pool, so team
 * quota, pool capacity, cost and the export count it where Kueue ran it. The worker's Kueue admitted it within the
 * team's ClusterQueue there, so the move is not weighed again. Audited as `batch-job.place` (and
 * `reservation.move` when the pool changes); undefined when the job is not active or is already placed so.
 */
export async function placeBatchJobInTransaction(
  tx: Knex.Transaction,
  input: {
    id: string;
    workerCluster: string;
    pool: string;
    monthlyCostMicrosPerGpu: number;
    actor: string;
    now: Date;
  },
): Promise<BatchJobRecord | undefined> {
  const found = await tx<BatchJobRow>('batch_jobs')
    .where({ id: input.id })
    .first();
  if (!found || found.state !== 'active') return undefined;
  if (
    found.worker_cluster === input.workerCluster &&
    found.pool === input.pool
  ) {
    return undefined;
  }
  // The lock order of every ledger write: the team's quota row first.
  await lockTeam(tx, found.team);
  const changed = await tx<BatchJobRow>('batch_jobs')
    .where({ id: input.id, state: 'active' })
    .update({ worker_cluster: input.workerCluster, pool: input.pool });
  if (changed !== 1) return undefined;
  if (found.pool !== input.pool) {
    const held = await tx<ReservationRow>('reservations')
      .where({ batch_job_id: input.id })
      .whereIn('state', ['held', 'pending']);
    for (const row of held) {
      const moved: ReservationRow = {
        ...row,
        pool: input.pool,
        monthly_cost_micros: Math.round(
          (input.monthlyCostMicrosPerGpu * Number(row.gpu_units)) /
            GPU_UNITS_PER_EQUIVALENT,
        ),
      };
      await tx<ReservationRow>('reservations').where({ id: row.id }).update({
        pool: moved.pool,
        monthly_cost_micros: moved.monthly_cost_micros,
      });
      await writeAuditEvent(tx, {
        actor: input.actor,
        action: 'reservation.move',
        subjectType: 'reservation',
        subjectId: row.id,
        team: found.team,
        before: toReservationRecord(row),
        after: toReservationRecord(moved),
      });
    }
  }
  const after = toBatchJobRecord(
    (await tx<BatchJobRow>('batch_jobs').where({ id: input.id }).first())!,
  );
  await writeAuditEvent(tx, {
    actor: input.actor,
    action: 'batch-job.place',
    subjectType: 'batch-job',
    subjectId: input.id,
    team: found.team,
    before: toBatchJobRecord(found),
    after,
  });
  return after;
}
