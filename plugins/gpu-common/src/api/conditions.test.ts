import {
  isServiceReason,
  SERVICE_REASONS,
  serviceConditions,
  ServiceConditionSource,
} from './conditions';

const at = '2026-12-02T10:00:00.000Z';

function source(
  overrides: Partial<ServiceConditionSource>,
): ServiceConditionSource {
  return {
    status: 'ready',
    reason: 'Available',
    mode: 'apply',
    generation: 2,
    observedGeneration: 2,
    statusChangedAt: at,
    ...overrides,
  };
}

function byType(conditions: ReturnType<typeof serviceConditions>) {
  return Object.fromEntries(conditions.map(c => [c.type, c]));
}

describe('serviceConditions', () => {
  it('says a ready service is reserved, approved, applied at its generation and available', () => {
    const conditions = byType(serviceConditions(source({})));
    expect(conditions.Reserved).toMatchObject({
      status: 'True',
      reason: 'Reserved',
    });
    expect(conditions.Approved).toMatchObject({
      status: 'True',
      reason: 'Approved',
    });
    expect(conditions.Applied).toMatchObject({
      status: 'True',
      reason: 'Applied',
      observedGeneration: 2,
    });
    expect(conditions.Available).toEqual({
      type: 'Available',
      status: 'True',
      reason: 'Available',
      observedGeneration: 2,
      lastTransitionTime: at,
    });
  });

  it('gives the cause of a starting service as the reason of Available=False', () => {
    const conditions = byType(
      serviceConditions(
        source({
          status: 'starting',
          reason: 'KueuePending',
          statusReason: 'Waiting for Kueue admission: insufficient quota',
        }),
      ),
    );
    expect(conditions.Available).toMatchObject({
      status: 'False',
      reason: 'KueuePending',
      message: 'Waiting for Kueue admission: insufficient quota',
    });
  });

  it('keeps the generation last applied while a change is being applied', () => {
    const conditions = byType(
      serviceConditions(
        source({
          status: 'applying',
          reason: 'Applying',
          generation: 3,
          observedGeneration: 2,
        }),
      ),
    );
    expect(conditions.Applied).toMatchObject({
      status: 'False',
      reason: 'Applying',
      observedGeneration: 2,
    });
    expect(conditions.Available).toBeUndefined();
  });

  it('tells a failed apply from a failed teardown by reason', () => {
    expect(
      byType(
        serviceConditions(source({ status: 'failed', reason: 'ApplyFailed' })),
      ).Applied,
    ).toMatchObject({ status: 'False', reason: 'ApplyFailed' });
    expect(
      byType(
        serviceConditions(
          source({ status: 'failed', reason: 'TeardownFailed' }),
        ),
      ).Deleting,
    ).toMatchObject({ status: 'True', reason: 'TeardownFailed' });
  });

  it('holds nothing for a request waiting for approval, rejected or deleted', () => {
    for (const [status, reason] of [
      ['pending-approval', 'AwaitingApproval'],
      ['rejected', 'Rejected'],
      ['deleted', 'Deleted'],
    ] as const) {
      const conditions = byType(
        serviceConditions(source({ status, reason, observedGeneration: 1 })),
      );
      expect(conditions.Reserved.status).toBe('False');
      expect(conditions.Available).toBeUndefined();
    }
  });

  it('says a rendered service is approved but not applied, and why', () => {
    const conditions = byType(
      serviceConditions(
        source({
          status: 'approved',
          reason: 'RenderedForGitOps',
          mode: 'gitops',
          observedGeneration: undefined,
        }),
      ),
    );
    expect(conditions.Approved.status).toBe('True');
    expect(conditions.Applied).toMatchObject({
      status: 'False',
      reason: 'RenderedForGitOps',
      observedGeneration: 0,
    });
  });

  it('says Moving while a service moves between clusters: waiting for the new cluster, then removing it from the old one', () => {
    const moving = (overrides: Partial<ServiceConditionSource>) =>
      byType(
        serviceConditions(
          source({ cluster: 'prod-eu', movingFrom: 'dev', ...overrides }),
        ),
      ).Moving;
    expect(
      moving({ status: 'starting', reason: 'KueuePending' }),
    ).toMatchObject({
      status: 'True',
      reason: 'MoveWaitingForTarget',
      message:
        'Moving from cluster dev to cluster prod-eu: its objects on dev keep serving until it is available on prod-eu',
    });
    expect(moving({ status: 'applying', reason: 'Applying' })?.reason).toBe(
      'MoveWaitingForTarget',
    );
    // The new cluster refused it: still waiting, the old one serves.
    expect(moving({ status: 'failed', reason: 'ApplyFailed' })?.reason).toBe(
      'MoveWaitingForTarget',
    );
    expect(moving({ status: 'ready', reason: 'Available' })).toMatchObject({
      status: 'True',
      reason: 'MoveRemovingSource',
    });
    // Being deleted from both clusters, or not moving: no Moving condition.
    expect(moving({ status: 'deleting', reason: 'Deleting' })).toBeUndefined();
    expect(
      byType(serviceConditions(source({ cluster: 'prod-eu' }))).Moving,
    ).toBeUndefined();
  });

  it('uses only reasons of the closed set', () => {
    const statuses = [
      'pending-approval',
      'approved',
      'applying',
      'starting',
      'ready',
      'failed',
      'rejected',
      'deleting',
      'deleted',
    ] as const;
    for (const status of statuses) {
      for (const reason of SERVICE_REASONS) {
        for (const condition of serviceConditions(source({ status, reason }))) {
          expect(isServiceReason(condition.reason)).toBe(true);
          expect(condition.reason).toMatch(/^[A-Z][A-Za-z]+$/);
        }
      }
    }
    expect(isServiceReason('Waiting for Kueue')).toBe(false);
  });
});
