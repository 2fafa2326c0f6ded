import { Knex } from 'knex';
import { AdmissionSnapshot, GovernanceContext } from '../admission';
import {
  admissionSnapshotOf,
  admissionSnapshotReads,
  AdmissionReads,
  readAdmissionSnapshot,
} from './admissionSnapshot';
import { backToBack } from './backToBack';
import {
  allowanceOfLockRow,
  lockLedgerAndPool,
  lockLedgerAndPoolStatement,
} from './ledger';
import { readTogetherStatement } from './readTogether';
import { earlierResult, findByRequestKey, requestKeyQuery } from './requestKey';
import { ServiceRow } from './rows';
import { isPostgres } from './transactions';
import { CreateServiceInput, CreateServiceResult } from './types';

/** What a create read under its team's and pool's locks: an earlier request's result, or what admission decides on. */
export type LockedCreateRead =
  | { existing: CreateServiceResult }
  | { existing?: undefined; snapshot: AdmissionSnapshot };

/**
 * Takes the team's lock and then the pool's, then reads the service of an earlier request with the same key and
 * admission's snapshot at `now`. On PostgreSQL the three statements are sent back to back (`backToBack`): every
 * create of the team waits for the team's lock, and the reads no longer wait for a turn of a busy event loop after
 * it is granted. A repeated key answers what its first request created (the snapshot read beside it goes unused).
 */
export async function lockAndReadForCreate(
  tx: Knex.Transaction,
  input: CreateServiceInput,
  context: GovernanceContext,
  now: Date,
): Promise<LockedCreateRead> {
  const { team, pool } = input;
  if (!isPostgres(tx)) {
    const ledger = await lockLedgerAndPool(tx, team, pool);
    const existing = await findByRequestKey(tx, input);
    if (existing) return { existing };
    return {
      snapshot: await readAdmissionSnapshot(tx, context, { ledger, now }),
    };
  }
  const reads = readTogetherStatement<AdmissionReads>(
    tx,
    admissionSnapshotReads(tx, { ledger: { team, pool }, now }),
  )!;
  const keyQuery = requestKeyQuery(tx, input);
  const [lockRows, ...rest] = await backToBack(tx, [
    lockLedgerAndPoolStatement(tx, team, pool),
    ...(keyQuery ? [{ unprepared: keyQuery }] : []),
    reads.statement,
  ]);
  const [readRow] = rest[rest.length - 1];
  const existing =
    keyQuery &&
    (await earlierResult(
      tx,
      input,
      rest[0][0] as unknown as ServiceRow | undefined,
    ));
  if (existing) return { existing };
  const ledger = allowanceOfLockRow(team, pool, lockRows);
  return {
    snapshot: admissionSnapshotOf(
      context,
      { ledger, now },
      reads.answers(readRow),
    ),
  };
}
