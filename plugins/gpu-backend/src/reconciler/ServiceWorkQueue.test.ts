import { mockServices } from '@backstage/backend-test-utils';
import { ServiceWorkQueue } from './ServiceWorkQueue';

/** A worker whose runs the test ends one by one. */
function controlledWorker() {
  const runs: { id: string; done: () => void }[] = [];
  const work = (id: string) =>
    new Promise<void>(resolve => runs.push({ id, done: resolve }));
  return { runs, work };
}

const tick = () => new Promise(resolve => setImmediate(resolve));

describe('ServiceWorkQueue', () => {
  const logger = mockServices.logger.mock();

  it('works on an id once however often it is added while it waits', async () => {
    const queue = new ServiceWorkQueue(logger, { concurrency: 1 });
    const { runs, work } = controlledWorker();
    queue.add('a');
    queue.add('b');
    queue.add('b');
    queue.start(work);
    expect(runs.map(r => r.id)).toEqual(['a']);
    expect(queue.has('b')).toBe(true);
    runs[0].done();
    await tick();
    expect(runs.map(r => r.id)).toEqual(['a', 'b']);
    expect(queue.has('a')).toBe(false);
    expect(queue.has('b')).toBe(true);
    runs[1].done();
    await queue.idle();
    expect(runs).toHaveLength(2);
    expect(queue.has('b')).toBe(false);
  });

  it('works on an id again when it is added while being worked on (the write may have come after the read)', async () => {
    const queue = new ServiceWorkQueue(logger);
    const { runs, work } = controlledWorker();
    queue.start(work);
    queue.add('a');
    queue.add('a');
    expect(runs.map(r => r.id)).toEqual(['a']);
    runs[0].done();
    await tick();
    expect(runs.map(r => r.id)).toEqual(['a', 'a']);
    runs[1].done();
    await queue.idle();
    expect(queue.length).toBe(0);
  });

  it('never works on one id twice at once, and on at most `concurrency` ids', async () => {
    const queue = new ServiceWorkQueue(logger, { concurrency: 2 });
    const { runs, work } = controlledWorker();
    queue.start(work);
    for (const id of ['a', 'b', 'c', 'a']) queue.add(id);
    expect(runs.map(r => r.id)).toEqual(['a', 'b']);
    runs[1].done();
    await tick();
    expect(runs.map(r => r.id)).toEqual(['a', 'b', 'c']);
    runs[0].done();
    await tick();
    expect(runs.map(r => r.id)).toEqual(['a', 'b', 'c', 'a']);
    runs[2].done();
    runs[3].done();
    await queue.idle();
  });

  it('logs a failed run, goes on, and works on it again with backoff until it succeeds', async () => {
    const queue = new ServiceWorkQueue(logger, {
      failureBackoffMs: { initial: 20, max: 40 },
    });
    const seen: string[] = [];
    let badRuns = 0;
    const healed = new Promise<void>(resolve => {
      queue.start(async id => {
        seen.push(id);
        if (id !== 'bad') return;
        badRuns += 1;
        if (badRuns <= 3) throw new Error('cluster gone');
        resolve();
      });
    });
    queue.add('bad');
    queue.add('good');
    await healed;
    await queue.idle();
    expect(seen).toEqual(['bad', 'good', 'bad', 'bad', 'bad']);
    expect(logger.warn).toHaveBeenCalledWith(
      'Reconciling a GPU service failed; trying again in 20 ms',
      { serviceId: 'bad', failures: 1, error: 'Error: cluster gone' },
    );
    expect(logger.warn).toHaveBeenCalledWith(
      'Reconciling a GPU service failed; trying again in 40 ms',
      { serviceId: 'bad', failures: 3, error: 'Error: cluster gone' },
    );
  });

  it('adds an id after a pause', async () => {
    jest.useFakeTimers();
    try {
      const queue = new ServiceWorkQueue(logger);
      const seen: string[] = [];
      queue.start(async id => {
        seen.push(id);
      });
      queue.addAfter('later', 1_000);
      jest.advanceTimersByTime(999);
      expect(seen).toEqual([]);
      jest.advanceTimersByTime(1);
      expect(seen).toEqual(['later']);
    } finally {
      jest.useRealTimers();
    }
  });
});
