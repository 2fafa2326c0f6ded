import {
  admittedStatus,
  KUEUE_QUOTA_MESSAGE,
  KUEUE_QUOTA_WORDS,
  pendingAdmissionStatus,
} from '../../__testUtils__/gpuFixtures';
import {
  describeAdmission,
  describeFlavors,
  describePodPhase,
  describeReplicas,
  kueueMessageInWords,
  statusLabel,
} from './describeClusterStatus';

describe('statusLabel', () => {
  it.each([
    ['KueuePending', 'Starting: waiting for Kueue admission'],
    ['Unschedulable', 'Starting: waiting for a node'],
    ['ImagePullBackOff', 'Starting: an image cannot be pulled'],
    ['CrashLoopBackOff', 'Starting: a pod is failing'],
    ['ContainerConfigError', 'Starting: a container cannot start'],
    ['DeploymentMissing', 'Starting: the Deployment is missing'],
    ['Applied', 'Starting: waiting for the rollout'],
    ['RolloutInProgress', 'Starting: waiting for the rollout'],
    ['WarningEvent', 'Starting: see the warning below'],
  ] as const)('words a starting service by its reason %s', (reason, label) => {
    expect(statusLabel('starting', reason)).toBe(label);
  });

  it('words the other statuses by their reasons', () => {
    expect(statusLabel('starting')).toBe('Starting: waiting for the rollout');
    expect(statusLabel('ready', 'Available')).toBe('Ready');
    expect(statusLabel('applying', 'Applying')).toBe(
      'Applying: sending the manifests to the cluster',
    );
    expect(statusLabel('failed', 'ApplyFailed')).toBe(
      'Failed: the cluster refused the apply',
    );
    expect(statusLabel('failed', 'TeardownFailed')).toBe(
      'Failed: removing it from the cluster failed',
    );
    expect(statusLabel('deleting', 'Deleting')).toBe(
      'Deleting: removing it from the cluster',
    );
    expect(statusLabel('deleted', 'DeletedWithLeftovers')).toBe(
      'Deleted: objects may remain',
    );
    expect(statusLabel('approved', 'DryRun')).toBe(
      'Approved: rendered (dry-run)',
    );
    expect(statusLabel('pending-approval', 'AwaitingApproval')).toBe(
      'Pending approval',
    );
  });
});

describe('cluster facts', () => {
  it('describes replicas of a missing Deployment with its reason', () => {
    const deployment = {
      ...pendingAdmissionStatus().deployment!,
      exists: false,
      readyReplicas: 0,
      updatedReplicas: 0,
      conditions: [],
      reason: 'Deployment ml-serving/summariser is not in the cluster',
    };
    expect(describeReplicas(deployment)).toEqual({
      value: '0 of 1',
      caption: 'Deployment ml-serving/summariser is not in the cluster',
    });
  });

  it('names the pools a workload was admitted on (Kueue flavors), per resource only when they differ', () => {
    expect(describeFlavors({ 'nvidia.com/gpu': 'l4-ondemand' })).toBe(
      'pool l4-ondemand',
    );
    expect(describeFlavors({ 'nvidia.com/gpu': 'h100', cpu: 'h100' })).toBe(
      'pool h100',
    );
    expect(describeFlavors({ 'nvidia.com/gpu': 'h100', cpu: 'default' })).toBe(
      'pools h100 (nvidia.com/gpu), default (cpu)',
    );
    expect(describeFlavors({})).toBe('');
    const admitted = describeAdmission({
      ...admittedStatus().admission!,
      flavors: { 'nvidia.com/gpu': 'h100', cpu: 'default' },
    }).caption;
    expect(admitted).toBe(
      'On pools h100 (nvidia.com/gpu), default (cpu), team queue gpu-ml-platform; 1 workload admitted',
    );
    expect(admitted).not.toMatch(/flavor/i);
  });

  it('counts pending workloads when only some are pending, and says when Kueue has none', () => {
    expect(
      describeAdmission({
        ...pendingAdmissionStatus().admission!,
        admitted: 1,
        pending: 1,
      }),
    ).toEqual({
      value: 'Pending',
      caption: `1 of 2 workloads pending: ${KUEUE_QUOTA_WORDS}`,
    });
    expect(
      describeAdmission({
        state: 'none',
        admitted: 0,
        pending: 0,
        flavors: {},
        workloads: [],
      }).value,
    ).toBe('No workload');
  });

  it('says why a pod is not running or ready', () => {
    const [gated] = pendingAdmissionStatus().pods!;
    expect(describePodPhase(gated)).toBe('Pending (SchedulingGated)');
    expect(
      describePodPhase({
        ...admittedStatus({ ready: false }).pods![0],
        terminating: true,
      }),
    ).toBe('Running, not ready (terminating, ContainersNotReady)');
    expect(describePodPhase(admittedStatus().pods![0])).toBe('Running');
  });
});

describe('kueueMessageInWords', () => {
  it("says Kueue's reasons with pools and the team queue, not flavors and pod sets (issue 25 jargon)", () => {
    expect(kueueMessageInWords(KUEUE_QUOTA_MESSAGE)).toBe(KUEUE_QUOTA_WORDS);
    expect(
      kueueMessageInWords(
        "couldn't assign flavors to pod set main: flavor h100 doesn't match node affinity, insufficient quota for nvidia.com/gpu in flavor spot-l4, request > maximum capacity (2 > 1)",
      ),
    ).toBe(
      "pool h100 does not match the pod's node affinity, not enough quota in the team queue for nvidia.com/gpu on pool spot-l4, request > maximum capacity (2 > 1)",
    );
    expect(
      kueueMessageInWords(
        `Waiting for Kueue admission: ${KUEUE_QUOTA_MESSAGE}`,
      ),
    ).toBe(`Waiting for Kueue admission: ${KUEUE_QUOTA_WORDS}`);
    expect(kueueMessageInWords('Pending')).toBe('Pending');
  });
});
