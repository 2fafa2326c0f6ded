import { summariserService } from '../../__testUtils__/gpuFixtures';
import { describeService } from './describeService';

describe('describeService', () => {
  it('says the replicas of a fixed service', () => {
    expect(describeService(summariserService())).toBe(
      'dedicated on l4-ondemand · 1 replica, 1 GPU-equivalent · production · approved (dry run, no cluster)',
    );
  });

  it('says the replica range of an autoscaled service beside what its reservation holds', () => {
    const fixed = summariserService();
    const scaled = summariserService({
      request: {
        ...fixed.request,
        autoscaling: {
          minReplicas: 0,
          maxReplicas: 2,
          targetQueueDepth: 4,
          engine: 'keda',
        },
      },
      // Reserved at its maximum (gpu.admission.autoscaledReplicas: maximum).
      gpuEquivalents: 2,
    });
    expect(describeService(scaled)).toBe(
      'dedicated on l4-ondemand · 0 to 2 replicas, 2 GPU-equivalents · production · approved (dry run, no cluster)',
    );
  });

  it('says the status in words, not its key (issue 25: "pending-approval (apply)")', () => {
    expect(
      describeService(
        summariserService({ status: 'pending-approval', mode: 'apply' }),
      ),
    ).toBe(
      'dedicated on l4-ondemand · 1 replica, 1 GPU-equivalent · production · waiting for approval',
    );
    expect(
      describeService(
        summariserService({ status: 'deleting', mode: 'gitops' }),
      ),
    ).toMatch(/ · being deleted$/);
  });
});
