import {
  admittedStatus,
  KUEUE_QUOTA_MESSAGE,
  pendingAdmissionStatus,
} from '../../__testUtils__/gpuFixtures';
import {
  describeAdmission,
  describeFlavors,
  describePodPhase,
  describeReplicas,
  statusLabel,
} from './describeClusterStatus';

describe('statusLabel', () => {
  it.each([
    [
      `Waiting for Kueue admission: ${KUEUE_QUOTA_MESSAGE}`,
      'Starting: waiting for Kueue admission',
    ],
    [
      `Waiting for Kueue admission (1 of 2 pods): ${KUEUE_QUOTA_MESSAGE}`,
      'Starting: waiting for Kueue admission',
    ],
    [
      'Pod summariser-5d8f7b6c9d-x7k2p cannot be scheduled: 0/3 nodes are available: 3 Insufficient nvidia.com/gpu.',
      'Starting: waiting for a node',
    ],
    [
      'Pod summariser-5d8f7b6c9d-x7k2p: ImagePullBackOff: Back-off pulling image "vllm/vllm-openai:v0.6.3"',
      'Starting: a pod is failing',
    ],
    [
      'Availability lost: Pod summariser-5d8f7b6c9d-x7k2p: CrashLoopBackOff: back-off 5m0s restarting failed container=vllm',
      'Starting again: a pod is failing',
    ],
    [
      'Deployment ml-serving/summariser is not in the cluster',
      'Starting: the Deployment is missing',
    ],
    [
      'Applied; waiting for the Deployment to become available',
      'Starting: waiting for the rollout',
    ],
    [
      'Waiting for the Deployment: the Deployment controller has not yet observed generation 1',
      'Starting: waiting for the rollout',
    ],
  ])('words starting with the reason %j as %j', (reason, label) => {
    expect(statusLabel('starting', reason)).toBe(label);
  });

  it('words the other statuses', () => {
    expect(statusLabel('starting')).toBe('Starting: waiting for the rollout');
    expect(statusLabel('ready')).toBe('Ready');
    expect(statusLabel('applying')).toBe(
      'Applying: sending the manifests to the cluster',
    );
    expect(statusLabel('failed', 'Apply failed: forbidden')).toBe('Failed');
    expect(statusLabel('deleting')).toBe(
      'Deleting: removing it from the cluster',
    );
    expect(statusLabel('pending-approval')).toBe('Pending approval');
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

  it('names the flavors per resource only when they differ', () => {
    expect(describeFlavors({ 'nvidia.com/gpu': 'l4-ondemand' })).toBe(
      'l4-ondemand',
    );
    expect(describeFlavors({ 'nvidia.com/gpu': 'h100', cpu: 'h100' })).toBe(
      'h100',
    );
    expect(describeFlavors({ 'nvidia.com/gpu': 'h100', cpu: 'default' })).toBe(
      'h100 (nvidia.com/gpu), default (cpu)',
    );
    expect(
      describeAdmission({
        ...admittedStatus().admission!,
        flavors: { 'nvidia.com/gpu': 'h100', cpu: 'default' },
      }).caption,
    ).toBe(
      'in ClusterQueue gpu-ml-platform on flavors h100 (nvidia.com/gpu), default (cpu); 1 workload admitted',
    );
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
      caption: `1 of 2 workloads pending: ${KUEUE_QUOTA_MESSAGE}`,
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
