import type { ReservationRecord, ServiceRecord } from '../database';
import { ServiceAllocation } from './AllocationReader';
import { chargedSharePerReplica } from './measurement';

function allocation(
  replicas: number,
  reservations: Array<Pick<ReservationRecord, 'gpuEquivalents' | 'state'>>,
): ServiceAllocation {
  return {
    service: { request: { replicas } } as unknown as ServiceRecord,
    reservations: reservations.map(
      (r, i) =>
        ({
          id: `r${i}`,
          serviceId: 's',
          team: 't',
          pool: 'a100-mig',
          monthlyCostMicros: 0,
          createdAt: '2026-12-01T00:00:00Z',
          ...r,
        } as ReservationRecord),
    ),
    basis: 'cluster-status',
    runs: [],
    spending: [],
  } as ServiceAllocation;
}

/** What the demo's a100-mig layout weighs a 1g.10gb today: not what a service holding 1/7 is charged for. */
const LAYOUT_SHARE = { gpuShare: 2 / 15 };

describe('chargedSharePerReplica', () => {
  it("is the held reservation's GPU-equivalents per replica, as the cost counts them, not the layout's weight", () => {
    expect(
      chargedSharePerReplica(
        allocation(1, [{ gpuEquivalents: 1 / 7, state: 'held' }]),
        LAYOUT_SHARE,
      ),
    ).toBeCloseTo(1 / 7, 12);
    expect(
      chargedSharePerReplica(
        allocation(2, [{ gpuEquivalents: 2 / 7, state: 'held' }]),
        LAYOUT_SHARE,
      ),
    ).toBeCloseTo(1 / 7, 12);
  });

  it('prefers the held reservation over a later one, and takes the latest when none is held', () => {
    expect(
      chargedSharePerReplica(
        allocation(1, [
          { gpuEquivalents: 1 / 7, state: 'held' },
          { gpuEquivalents: 2 / 7, state: 'released' },
        ]),
        LAYOUT_SHARE,
      ),
    ).toBeCloseTo(1 / 7, 12);
    expect(
      chargedSharePerReplica(
        allocation(1, [
          { gpuEquivalents: 1 / 7, state: 'released' },
          { gpuEquivalents: 2 / 7, state: 'released' },
        ]),
        LAYOUT_SHARE,
      ),
    ).toBeCloseTo(2 / 7, 12);
  });

  it("falls back to the slice's weight without a reservation, else 1", () => {
    expect(chargedSharePerReplica(allocation(1, []), LAYOUT_SHARE)).toBe(
      2 / 15,
    );
    expect(chargedSharePerReplica(allocation(1, []), undefined)).toBe(1);
  });
});
