import { mockServices } from '@backstage/backend-test-utils';
import { ConflictError, NotFoundError } from '@backstage/errors';
import { LoopTrigger } from './LoopTrigger';

const settle = () => new Promise(resolve => setTimeout(resolve, 20));

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
    await settle();
    expect(calls.filter(c => c === 'platform')).toHaveLength(3);
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
