import { mockServices } from '@backstage/backend-test-utils';
import { ConflictError, NotFoundError } from '@backstage/errors';
import { LoopTrigger } from './LoopTrigger';

const settle = () => new Promise(resolve => setTimeout(resolve, 20));

/** Waits until `done` holds (at most 5 s of 10 ms turns): retries run on real timers, late on a busy machine. */
async function until(done: () => boolean) {
  for (let turn = 0; turn < 500 && !done(); turn++) {
    await new Promise(resolve => setTimeout(resolve, 10));
  }
}

describe('LoopTrigger', () => {
  const logger = mockServices.logger.mock();

  it('starts each task now, and asks a running one again until it starts after the write', async () => {
    const calls: string[] = [];
    let running = 2;
    const trigger = new LoopTrigger({
      logger,
      retryDelayMs: 1,
      scheduler: {
        async triggerTask(id: string) {
          calls.push(id);
          if (id === 'platform' && running-- > 0) {
            throw new ConflictError(`Task ${id} is currently running`);
          }
        },
      },
    });
    trigger.trigger('platform', 'status');
    const platformCalls = () => calls.filter(c => c === 'platform');
    await until(() => platformCalls().length >= 3);
    await settle();
    expect(platformCalls()).toHaveLength(3);
    expect(calls.filter(c => c === 'status')).toHaveLength(1);
  });

  it('coalesces requests for a task while one is pending, and ignores tasks this backend does not schedule', async () => {
    const calls: string[] = [];
    const trigger = new LoopTrigger({
      logger,
      retryDelayMs: 1,
      scheduler: {
        async triggerTask(id: string) {
          calls.push(id);
          if (id === 'absent')
            throw new NotFoundError(`Task ${id} does not exist`);
          await settle();
        },
      },
    });
    trigger.trigger('platform');
    trigger.trigger('platform');
    trigger.trigger('absent');
    await settle();
    await settle();
    expect(calls).toEqual(['platform', 'absent']);
    expect(logger.warn).not.toHaveBeenCalled();
  });
});
