import { mockServices } from '@backstage/backend-test-utils';
import type { JsonObject } from '@backstage/types';
import {
  APPLY_RESUME_TASK_ID,
  readStatusSettings,
  scheduleStatusTasks,
  STATUS_REFRESH_TASK_ID,
  BATCH_RELEASE_TASK_ID,
} from './scheduleStatusTasks';

async function scheduled(
  config: JsonObject,
  batchJobs?: { releaseFinished: jest.Mock },
) {
  const scheduleTask = jest.fn();
  await scheduleStatusTasks({
    scheduler: { scheduleTask } as any,
    statuses: {} as any,
    resumer: {} as any,
    settings: readStatusSettings(mockServices.rootConfig({ data: config })),
    logger: mockServices.logger.mock(),
    batchJobs: batchJobs as any,
  });
  const byId = new Map(
    scheduleTask.mock.calls.map(([task]) => [task.id as string, task]),
  );
  return {
    resume: byId.get(APPLY_RESUME_TASK_ID),
    refresh: byId.get(STATUS_REFRESH_TASK_ID),
    batchRelease: byId.get(BATCH_RELEASE_TASK_ID),
  };
}

describe('gpu-apply-resume schedule', () => {
  it('holds its lock for gpu.apply.resumeAfter, the lease it gives a stopped replica, not 15 minutes', async () => {
    // A replica that dies while running the task keeps the others out until the run's timeout: with the default
    // resumeAfter of 2 minutes, its interrupted applies are resumed within 2 minutes, not after 15.
    const defaults = await scheduled({});
    expect(defaults.resume).toMatchObject({
      scope: 'global',
      timeout: { milliseconds: 120_000 },
    });
    const configured = await scheduled({
      gpu: { apply: { resumeAfter: { seconds: 30 } } },
    });
    expect(configured.resume).toMatchObject({
      timeout: { milliseconds: 30_000 },
    });
    // The status refresh keeps its own timeout.
    expect(configured.refresh).toMatchObject({ timeout: { minutes: 5 } });
  });
});

describe('gpu-batch-release schedule', () => {
  it('releases finished batch jobs at the refresh frequency, on one replica at a time, when there are batch jobs', async () => {
    expect((await scheduled({})).batchRelease).toBeUndefined();
    const releaseFinished = jest.fn(async () => ({
      checked: 1,
      released: [{ id: 'b1', reason: 'the Job completed' }],
      unreadable: [],
    }));
    const { batchRelease, refresh } = await scheduled({}, { releaseFinished });
    expect(batchRelease).toMatchObject({
      scope: 'global',
      frequency: refresh.frequency,
    });
    await batchRelease.fn();
    expect(releaseFinished).toHaveBeenCalledTimes(1);
  });
});
