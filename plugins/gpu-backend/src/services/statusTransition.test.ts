import type {
  ClusterDeploymentStatus,
  ServiceClusterStatus,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { decideStatus, describeNotAvailable } from './statusTransition';

const deployment = (
  overrides: Partial<ClusterDeploymentStatus> = {},
): ClusterDeploymentStatus => ({
  name: 'summariser',
  namespace: 'ml',
  exists: true,
  replicas: 2,
  currentReplicas: 2,
  updatedReplicas: 2,
  readyReplicas: 1,
  availableReplicas: 1,
  available: false,
  reason: '1 of 2 updated replicas available',
  conditions: [],
  ...overrides,
});

function observed(
  overrides: Partial<ServiceClusterStatus> = {},
): ServiceClusterStatus {
  return {
    cluster: 'gpu-eu',
    observedAt: '2026-12-01T10:00:00.000Z',
    deployment: deployment(),
    admission: {
      state: 'admitted',
      admitted: 2,
      pending: 0,
      flavors: {},
      workloads: [],
    },
    pods: [],
    warnings: [],
    ...overrides,
  };
}

describe('decideStatus', () => {
  it('is ready exactly when the Deployment is available', () => {
    const available = observed({
      deployment: deployment({ available: true, reason: undefined }),
    });
    expect(
      decideStatus({ status: 'starting', statusReason: 'x' }, available),
    ).toEqual({ status: 'ready', reason: 'Available' });
    expect(
      decideStatus({ status: 'ready', reason: 'Available' }, available),
    ).toBeUndefined();
    expect(decideStatus({ status: 'starting' }, observed())).toEqual({
      status: 'starting',
      reason: 'RolloutInProgress',
      statusReason:
        'Waiting for the Deployment: 1 of 2 updated replicas available',
    });
  });

  it('says availability was lost, and keeps saying it while the service stays starting', () => {
    const lost = decideStatus({ status: 'ready' }, observed());
    expect(lost).toEqual({
      status: 'starting',
      reason: 'RolloutInProgress',
      statusReason:
        'Availability lost: Waiting for the Deployment: 1 of 2 updated replicas available',
    });
    expect(
      decideStatus({ status: 'starting', ...lost }, observed()),
    ).toBeUndefined();
  });

  it('changes nothing when the cluster could not be read', () => {
    expect(
      decideStatus(
        { status: 'ready' },
        {
          cluster: 'gpu-eu',
          observedAt: '2026-12-01T10:00:00.000Z',
          error: 'down',
        },
      ),
    ).toBeUndefined();
  });
});

describe('describeNotAvailable', () => {
  it("puts a missing Deployment first, then Kueue's message, then failing pods, then warnings", () => {
    const pending = {
      state: 'pending' as const,
      admitted: 1,
      pending: 1,
      flavors: {},
      reason: 'Pending',
      message: "couldn't assign flavors to pod set main: insufficient quota",
      workloads: [],
    };
    const crashing = {
      name: 'p-1',
      phase: 'Running',
      ready: false,
      restarts: 3,
      schedulingGates: [],
      reason: 'CrashLoopBackOff',
      message: 'back-off 40s',
    };
    const warning = {
      object: { kind: 'Pod', name: 'p-2' },
      reason: 'FailedScheduling',
      message: '0/3 nodes are available',
      count: 1,
    };
    expect(
      describeNotAvailable(
        observed({
          deployment: deployment({
            exists: false,
            reason: 'Deployment ml/summariser is not in the cluster',
          }),
          admission: pending,
        }),
      ),
    ).toEqual({
      reason: 'DeploymentMissing',
      message: 'Deployment ml/summariser is not in the cluster',
    });
    expect(
      describeNotAvailable(
        observed({ admission: pending, pods: [crashing], warnings: [warning] }),
      ),
    ).toEqual({
      reason: 'KueuePending',
      message:
        "Waiting for Kueue admission (1 of 2 pods): couldn't assign flavors to pod set main: insufficient quota",
    });
    expect(
      describeNotAvailable(observed({ pods: [crashing], warnings: [warning] })),
    ).toEqual({
      reason: 'CrashLoopBackOff',
      message: 'Pod p-1: CrashLoopBackOff: back-off 40s',
    });
    expect(describeNotAvailable(observed({ warnings: [warning] }))).toEqual({
      reason: 'WarningEvent',
      message: 'FailedScheduling (Pod p-2): 0/3 nodes are available',
    });
    expect(
      describeNotAvailable(
        observed({
          pods: [{ ...crashing, reason: 'ErrImagePull', message: undefined }],
        }),
      ).reason,
    ).toBe('ImagePullBackOff');
    expect(
      describeNotAvailable(
        observed({
          pods: [{ ...crashing, reason: 'Unschedulable', message: 'no GPU' }],
        }),
      ),
    ).toEqual({
      reason: 'Unschedulable',
      message: 'Pod p-1 cannot be scheduled: no GPU',
    });
  });
});
