import { ServiceCostSummary } from '@gpu-platform/backstage-plugin-gpu-common';
import { isCurrent, totalsOf } from './costTotals';

const row = (
  name: string,
  figures: Partial<ServiceCostSummary>,
): ServiceCostSummary => ({
  serviceId: `id-${name}`,
  name,
  team: 'search',
  namespace: 'search',
  environment: 'dev',
  status: 'ready',
  tier: 'dedicated',
  pool: 'l4-ondemand',
  gpuEquivalents: 1,
  accrualBasis: 'cluster-status',
  allocationMicros: 0,
  reservedMicros: 0,
  monthToDateMicros: 0,
  projectedMonthMicros: 0,
  ...figures,
});

describe('totalsOf', () => {
  it('adds every service that has a usage figure and names the ones that spent without one', () => {
    const totals = totalsOf([
      row('measured', {
        allocationMicros: 1000,
        usageMicros: 400,
        idleMicros: 600,
        monthToDateMicros: 5000,
      }),
      row('blind', { allocationMicros: 700, monthToDateMicros: 2000 }),
      row('gone', {
        status: 'deleted',
        usageMicros: 0,
        idleMicros: 0,
        monthToDateMicros: 300,
      }),
      row('shared', {
        allocationMicros: 200,
        usageMicros: 200,
        idleMicros: 0,
        aboveShareMicros: 90,
      }),
    ]);
    expect(totals.figures).toEqual({
      allocationMicros: 1900,
      reservedMicros: 0,
      usageMicros: 600,
      idleMicros: 600,
    });
    expect(totals.withoutUsage).toEqual([
      { serviceId: 'id-blind', name: 'blind' },
    ]);
    expect(totals.monthToDate).toBe(7300);
    expect(totals.aboveShare).toBe(90);
  });

  it('has no usage only when no service has one', () => {
    expect(
      totalsOf([row('blind', { allocationMicros: 5 })]).figures.usageMicros,
    ).toBeUndefined();
    expect(totalsOf([]).figures).toMatchObject({ usageMicros: 0 });
  });
});

describe('isCurrent', () => {
  it('keeps a deleted service in the lists only while it held GPUs in the window', () => {
    expect(isCurrent(row('live', {}))).toBe(true);
    expect(isCurrent(row('gone', { status: 'deleted' }))).toBe(false);
    expect(
      isCurrent(row('leaving', { status: 'deleted', allocationMicros: 1 })),
    ).toBe(true);
    expect(
      isCurrent(row('reserved', { status: 'deleted', reservedMicros: 1 })),
    ).toBe(true);
  });
});
