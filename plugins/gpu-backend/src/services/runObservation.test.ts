import type {
  ClusterDeploymentStatus,
  ServiceClusterStatus,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { observeRun } from './runObservation';

const READ_AT = '2026-11-20T10:25:00.000Z';
const APPLIED_AT = '2026-11-20T10:00:00.000Z';

function status(
  deployment: Partial<ClusterDeploymentStatus> | undefined,
  extra: Partial<ServiceClusterStatus> = {},
): ServiceClusterStatus {
  return {
    cluster: 'gpu-eu',
    observedAt: READ_AT,
    ...(deployment
      ? {
          deployment: {
            name: 'chat',
            namespace: 'ml-serving',
            exists: true,
            replicas: 2,
            currentReplicas: 2,
            updatedReplicas: 2,
            readyReplicas: 1,
            availableReplicas: 1,
            available: false,
            conditions: [],
            ...deployment,
          },
        }
      : {}),
    ...extra,
  };
}

const availableSince = (time: string) => [
  {
    type: 'Available',
    status: 'True' as const,
    lastTransitionTime: time,
  },
];

describe('observeRun', () => {
  it('runs from the Available transition when it is after the last stored change and not after the read', () => {
    expect(
      observeRun(
        status({ conditions: availableSince('2026-11-20T10:20:00Z') }),
        APPLIED_AT,
      ),
    ).toEqual({
      running: true,
      since: new Date('2026-11-20T10:20:00Z'),
      basis: 'deployment-available',
    });
  });

  it('runs from the read when the transition predates the last change (an Available condition without pods) or is in the future', () => {
    for (const time of ['2026-11-20T09:00:00Z', '2026-11-20T11:00:00Z']) {
      expect(
        observeRun(status({ conditions: availableSince(time) }), APPLIED_AT),
      ).toEqual({ running: true, since: new Date(READ_AT), basis: 'observed' });
    }
    expect(observeRun(status({}), APPLIED_AT)).toEqual({
      running: true,
      since: new Date(READ_AT),
      basis: 'observed',
    });
  });

  it('does not run with no available replica or no Deployment, saying why', () => {
    expect(
      observeRun(
        status(
          { availableReplicas: 0, readyReplicas: 0 },
          {
            admission: {
              state: 'pending',
              admitted: 0,
              pending: 2,
              flavors: {},
              message: 'insufficient quota',
              workloads: [],
            },
          },
        ),
        APPLIED_AT,
      ),
    ).toEqual({
      running: false,
      since: new Date(READ_AT),
      reason: 'Waiting for Kueue admission (2 of 2 pods): insufficient quota',
    });
    expect(
      observeRun(
        status({
          exists: false,
          availableReplicas: 0,
          reason: 'Deployment chat not found',
        }),
        APPLIED_AT,
      ),
    ).toMatchObject({ running: false, reason: 'Deployment chat not found' });
  });

  it('knows nothing when the cluster could not be read', () => {
    expect(
      observeRun(status(undefined, { error: 'timeout' }), APPLIED_AT),
    ).toBeUndefined();
    expect(observeRun(status(undefined), APPLIED_AT)).toBeUndefined();
  });
});
