import { AuditEventView } from '@gpu-platform/backstage-plugin-gpu-common';
import { describeAuditChange } from './describeAuditChange';

const base: AuditEventView = {
  id: '1',
  at: '2026-11-29T10:00:00.000Z',
  actor: 'user:default/guest',
  action: 'quota.put',
  subjectType: 'quota',
  subjectId: 'search',
};

describe('describeAuditChange', () => {
  it('lists the changed fields with before and after', () => {
    expect(
      describeAuditChange({
        ...base,
        before: {
          pools: { 'l4-ondemand': 2 },
          monthlyBudgetMicros: 4e9,
          team: 'search',
        },
        after: {
          pools: { 'l4-ondemand': 3 },
          monthlyBudgetMicros: 4e9,
          team: 'search',
        },
      }),
    ).toBe('pools: {"l4-ondemand":2} -> {"l4-ondemand":3}');
    expect(
      describeAuditChange({
        ...base,
        before: { status: 'pending-approval' },
        after: { status: 'approved', statusReason: 'dry-run' },
      }),
    ).toBe('status: pending-approval -> approved; statusReason: - -> dry-run');
  });

  it('summarises creations, removals and events without a change', () => {
    expect(describeAuditChange({ ...base, after: { a: 1, b: 2 } })).toBe(
      'created (2 fields)',
    );
    expect(describeAuditChange({ ...base, before: { a: 1 } })).toBe('removed');
    expect(
      describeAuditChange({ ...base, before: { a: 1 }, after: { a: 1 } }),
    ).toBe('no change');
    expect(describeAuditChange(base)).toBe('');
  });
});
