import { ServiceCost } from '@gpu-platform/backstage-plugin-gpu-common';
import { summariserCost } from '../../__testUtils__/gpuFixtures';
import { describeAccrual, describeAccrualBasis } from './describeAccrual';

function cost(overrides: Partial<ServiceCost>): ServiceCost {
  return { ...summariserCost(), ...overrides };
}

describe('describeAccrual', () => {
  it('says a dry run is reserved, not spend, with its monthly reservation', () => {
    const notice = describeAccrual(
      cost({
        accrualBasis: 'dry-run',
        allocationMicros: 0,
        reservedMicros: 19_315_200,
        reservedHours: 24,
        monthlyAllocationMicros: 587_504_000,
      }),
    );
    expect(notice?.headline).toBe(
      'Reserved $587.50 a month — dry run, nothing is running',
    );
    expect(notice?.detail).toBe(
      '$19.32 reserved in 24h (24.0 h held): the manifests are not applied, so this is reserved allocation, not spend.',
    );
  });

  it('says a workload Kueue has not admitted is reserved, not running yet, since when', () => {
    const pending = summariserCost();
    const notice = describeAccrual({
      ...pending,
      accrualBasis: 'cluster-status',
      workload: { running: false, since: '2026-11-20T11:00:00.000Z' },
      allocationMicros: 0,
      monthToDate: { ...pending.monthToDate, allocationMicros: 0 },
    });
    expect(notice?.headline).toBe(
      'Reserved, not running yet (since 2026-11-20 11:00 UTC)',
    );
  });

  it('says "not running since" for a workload that ran this month', () => {
    const notice = describeAccrual(
      cost({
        accrualBasis: 'cluster-status',
        workload: { running: false, since: '2026-11-20T12:00:00.000Z' },
      }),
    );
    expect(notice?.headline).toBe(
      'Reserved, not running (since 2026-11-20 12:00 UTC)',
    );
  });

  it('says nothing for a running workload or a GitOps service', () => {
    expect(
      describeAccrual(
        cost({
          accrualBasis: 'cluster-status',
          workload: { running: true, since: '2026-11-01T00:00:00.000Z' },
        }),
      ),
    ).toBeUndefined();
    expect(describeAccrual(cost({ accrualBasis: 'reservation' }))).toBe(
      undefined,
    );
  });

  it('names the basis of the window cost', () => {
    expect(describeAccrualBasis(cost({ accrualBasis: 'reservation' }))).toBe(
      'from the reservation: GitOps, the cluster is not read',
    );
    expect(describeAccrualBasis(cost({ accrualBasis: 'cluster-status' }))).toBe(
      'while running, as the cluster says',
    );
    // Applied at 10:00, running from 10:20: the first 20 minutes of an L4 at $0.8048/h are reserved.
    expect(
      describeAccrualBasis(
        cost({ accrualBasis: 'cluster-status', reservedMicros: 268_267 }),
      ),
    ).toBe(
      'while running, as the cluster says; $0.27 reserved while not running',
    );
  });
});
