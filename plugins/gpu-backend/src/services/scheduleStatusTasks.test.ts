import { mockServices } from '@backstage/backend-test-utils';
import type { JsonObject } from '@backstage/types';
import {
  APPLY_RESUME_TASK_ID,
  readStatusSettings,
  scheduleStatusTasks,
  STATUS_REFRESH_TASK_ID,
} from './scheduleStatusTasks';

async function scheduled(config: JsonObject) {
  const scheduleTask = jest.fn();
  await scheduleStatusTasks({
    scheduler: { scheduleTask } as any,
    statuses: {} as any,
    resumer: {} as any,
    settings: readStatusSettings(mockServices.rootConfig({ data: config })),
    logger: mockServices.logger.mock(),
  });
  const byId = new Map(
    scheduleTask.mock.calls.map(([task]) => [task.id as string, task]),
  );
  return {
    resume: byId.get(APPLY_RESUME_TASK_ID),
    refresh: byId.get(STATUS_REFRESH_TASK_ID),
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
