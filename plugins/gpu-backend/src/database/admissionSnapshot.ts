import { Knex } from 'knex';
import { AdmissionSnapshot, GovernanceContext } from '../admission';
import { readPoolHeld } from './governance';
import { LedgerAllowance, withHeld } from './ledger';
import { readMonthSpend } from './monthSpend';

/**
 * Reads what admission decides on (see {@link AdmissionSnapshot}) in one go: inside a transaction after the team's
 * quota row and the pool are locked, or without locks for a preview. `excludeReservationId` is the held reservation
 * a change gives back.
 */
export async function readAdmissionSnapshot(
  db: Knex | Knex.Transaction,
  context: GovernanceContext,
  input: {
    ledger: LedgerAllowance;
    excludeReservationId?: string;
    now: Date;
  },
): Promise<AdmissionSnapshot> {
  const { ledger, excludeReservationId, now } = input;
  const [withHeldLedger, month, poolHeld] = await Promise.all([
    withHeld(db, ledger, excludeReservationId),
    readMonthSpend(db, context, ledger.team, now, excludeReservationId),
    readPoolHeld(db, ledger.pool, excludeReservationId),
  ]);
  return { ledger: withHeldLedger, month, poolHeld, now };
}
