import {
  coreServices,
  createServiceFactory,
} from '@backstage/backend-plugin-api';
import { mockServices } from '@backstage/backend-test-utils';
import { setupFakeClusterServer } from '../__testUtils__/setupFakeClusterServer';
import { startApplyClusterBackend } from '../__testUtils__/startApplyClusterBackend';
import { PLATFORM_RECONCILE_TASK_ID } from './schedulePlatformReconciler';

const CLUSTER_QUEUE =
  '/apis/kueue.x-k8s.io/v1beta2/clusterqueues/gpu-ml-platform';

const server = setupFakeClusterServer();

async function start(gpu: Record<string, unknown> = {}) {
  const scheduler = mockServices.scheduler();
  const scheduleTask = jest.spyOn(scheduler, 'scheduleTask');
  const { api, http } = await startApplyClusterBackend(server, {
    gpu,
    features: [
      createServiceFactory({
        service: coreServices.scheduler,
        deps: {},
        factory: () => scheduler,
      }),
    ],
  });
  return { api, scheduler, scheduleTask, http };
}

function l4Quota(clusterQueue: any): string {
  return clusterQueue.spec.resourceGroups
    .flatMap((g: any) => g.flavors)
    .find((f: any) => f.name === 'l4-ondemand').resources[0].nominalQuota;
}

// Each test starts a backend; Jest's default 5 s was passed on a loaded machine.
jest.setTimeout(30_000);

describe('the scheduled platform reconciler', () => {
  it('is scheduled once for all replicas, every 10 minutes unless configured', async () => {
    const { scheduleTask } = await start();
    expect(scheduleTask).toHaveBeenCalledWith(
      expect.objectContaining({
        id: PLATFORM_RECONCILE_TASK_ID,
        scope: 'global',
        frequency: { minutes: 10 },
        timeout: expect.anything(),
        initialDelay: expect.anything(),
      }),
    );

    const configured = await start({ reconcile: { frequency: 'PT2M' } });
    expect(configured.scheduleTask).toHaveBeenCalledWith(
      expect.objectContaining({
        id: PLATFORM_RECONCILE_TASK_ID,
        frequency: { minutes: 2 },
      }),
    );
  });

  it('applies a quota changed through the API to the team ClusterQueue at once (the write starts the loop) and reports drift', async () => {
    const { api, scheduler, http } = await start();
    expect(
      (await http.get('/api/gpu/clusters/drift').expect(200)).body,
    ).toEqual({ items: [] });

    await scheduler.triggerTask(PLATFORM_RECONCILE_TASK_ID);
    expect(l4Quota(api.live(CLUSTER_QUEUE))).toBe('4');

    await http
      .put('/api/gpu/teams/ml-platform/quota')
      .send({ pools: { 'l4-ondemand': 7, h100: 8 }, monthlyBudget: '9000' })
      .expect(200);
    // Nobody triggers the task here: the quota write does, without waiting for the 10-minute period.
    const deadline = Date.now() + 10_000;
    while (l4Quota(api.live(CLUSTER_QUEUE)) !== '7' && Date.now() < deadline) {
      await new Promise(resolve => setTimeout(resolve, 50));
    }
    expect(l4Quota(api.live(CLUSTER_QUEUE))).toBe('7');

    // The run stores its drift report once it has applied.
    let drift = await http.get('/api/gpu/clusters/drift').expect(200);
    while (
      drift.body.items[0]?.drifted?.length === 0 &&
      Date.now() < deadline
    ) {
      await new Promise(resolve => setTimeout(resolve, 50));
      drift = await http.get('/api/gpu/clusters/drift').expect(200);
    }
    expect(drift.body.items).toHaveLength(1);
    expect(drift.body.items[0]).toMatchObject({
      cluster: 'gpu-eu',
      mode: 'apply',
      checked: true,
      applied: true,
      inSync: false,
      drifted: [
        {
          kind: 'ClusterQueue',
          name: 'gpu-ml-platform',
          state: 'changed',
        },
      ],
    });
  });
});
