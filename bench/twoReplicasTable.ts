/** The README table of the two-replica benchmark (bench/twoReplicas.ts), rendered by bench/readmeTables.ts. */

/* eslint-disable @typescript-eslint/no-explicit-any */
type Results = any;

function need(value: unknown, what: string): any {
  if (value === undefined || value === null) {
    throw new Error(`the results have no ${what}`);
  }
  return value;
}

const n = (value: number, digits = 0) =>
  need(value, 'number').toLocaleString('en-US', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });

/** Rows `measure | limit | measured` of one run, and whether every limit held. */
export function twoReplicasRows(r: Results): {
  rows: string[][];
  ok: boolean;
} {
  const burst = need(r.burst, 'burst');
  const outcome = need(r.outcome, 'outcome');
  const applies = need(r.applies, 'applies');
  const ledger = need(r.ledger, 'ledger');
  const limits: Results[] = need(r.limits, 'limits');
  const held = (name: string) =>
    limits.find(l => l.name.startsWith(name))?.ok ? 'met' : '**missed**';
  const rows = [
    [
      `${n(burst.services)} creates, ${
        burst.concurrency
      } in flight, split across 2 replicas on one PostgreSQL`,
      '',
      `A ${n(burst.answeredBy.a)}, B ${n(burst.answeredBy.b)} answered in ${n(
        burst.seconds,
        1,
      )} s; B SIGKILLed after ${n(burst.killedAfterAnswers)}, ${n(
        burst.sentAgainToA,
      )} POSTs sent again to A (same requestKey)`,
    ],
    [
      'APPLY requests / distinct objects of the burst (apiserver_request_total)',
      `= objects, + at most those of services resumed after the kill`,
      `${n(applies.applyRequests)} / ${n(applies.objects)}: ${n(
        applies.extraApplyRequests,
      )} more, ${n(applies.resumedServices)} services (${n(
        applies.objectsOfResumedServices,
      )} objects) resumed by A after resumeAfter ${n(
        r.resumeAfterSeconds,
      )} s ${held('APPLY')}`,
    ],
    [
      'services Available, or failed with a reason',
      `all ${n(outcome.services)}`,
      `${n(outcome.available)} Available, ${n(
        outcome.failed.length,
      )} failed, ${n(
        outcome.settledSecondsAfterKill,
        0,
      )} s after the kill ${held('services Available')}`,
    ],
    [
      'held reservations / live services (ledger)',
      'one each, none lost or doubled',
      `${n(ledger.heldReservations)} / ${n(ledger.live)}: lost ${n(
        ledger.lost.length + ledger.heldByDeletedOrRejected.length,
      )}, doubled ${n(
        ledger.doubled.length + ledger.namesStoredTwice.length,
      )} ${
        limits.filter(l => /lost|doubled|stored/.test(l.name)).every(l => l.ok)
          ? 'met'
          : '**missed**'
      }`,
    ],
  ];
  return { rows, ok: limits.every(l => l.ok) };
}
