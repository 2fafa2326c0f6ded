import { Knex } from 'knex';
import { AdmissionSnapshot, GovernanceContext } from '../admission';
import { HeldRow, poolHeldOf, poolHeldQueries } from './governance';
import {
  HeldOfTeamRow,
  heldOfTeamQuery,
  LedgerAllowance,
  withHeldOf,
} from './ledger';
import { MonthSpendRow, monthSpendOfRows, monthSpendQuery } from './monthSpend';
import { Answers, Reads, readTogether } from './readTogether';

/**
 * Reads what admission decides on (see {@link AdmissionSnapshot}) in one go: inside a transaction after the team's
 * quota row and the pool are locked, or without locks for a preview. `excludeReservationId` is the held reservation
 * a change gives back. On PostgreSQL the reads are one statement: a create holds the team's and the pool's locks
 * while it reads.
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
  const answers = await readTogether(db, admissionSnapshotReads(db, input));
  return admissionSnapshotOf(context, input, answers);
}

/** What {@link readAdmissionSnapshot} reads of the database, each read by name. */
export function admissionSnapshotReads(
  db: Knex | Knex.Transaction,
  input: {
    ledger: Pick<LedgerAllowance, 'team' | 'pool'>;
    excludeReservationId?: string;
    now: Date;
  },
): Reads<AdmissionReads> {
  const { ledger, excludeReservationId, now } = input;
  const pool = poolHeldQueries(db, ledger.pool, excludeReservationId);
  return {
    held: heldOfTeamQuery(db, ledger, excludeReservationId),
    month: monthSpendQuery(db, ledger.team, now, excludeReservationId),
    poolSums: pool.sums,
    poolExcluded: pool.excluded,
  };
}

/** The rows of {@link admissionSnapshotReads}, by read. */
export type AdmissionReads = {
  held: HeldOfTeamRow;
  month: MonthSpendRow;
  poolSums: HeldRow;
  poolExcluded: HeldRow;
};

/** The snapshot from what {@link admissionSnapshotReads} answered. */
export function admissionSnapshotOf(
  context: GovernanceContext,
  input: { ledger: LedgerAllowance; now: Date },
  answers: Answers<AdmissionReads>,
): AdmissionSnapshot {
  const { ledger, now } = input;
  return {
    ledger: withHeldOf(ledger, answers.held),
    month: monthSpendOfRows(answers.month, context, now),
    poolHeld: poolHeldOf(ledger.pool, answers.poolSums, answers.poolExcluded),
    now,
  };
}
