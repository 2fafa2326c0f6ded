import { MonthSpend } from '@gpu-platform/backstage-plugin-gpu-common';
import { Knex } from 'knex';
import { GovernanceContext, monthOf, monthSpendOf } from '../admission';
import { ReservationRow, toReservationRecord } from './rows';

/**
 * The team's spend this calendar month from the ledger (admission's `monthSpendOf` over every reservation of the
 * team held at some point since the start of the month), leaving `excludeReservationId` (the reservation a change
 * gives back) out of the rest of the month.
 */
export async function readMonthSpend(
  db: Knex | Knex.Transaction,
  context: GovernanceContext,
  team: string,
  now: Date,
  excludeReservationId?: string,
): Promise<MonthSpend> {
  const { startMs } = monthOf(now);
  const rows = await db<ReservationRow>('reservations')
    .where({ team })
    .whereNotNull('held_at')
    .where(q =>
      q.whereNull('released_at').orWhere('released_at', '>', new Date(startMs)),
    );
  return monthSpendOf(
    rows.map(toReservationRecord),
    context.prices,
    now,
    excludeReservationId,
  );
}
