import { QueryParty, QuerySlots } from './QuerySlots';

/** Tasks that run until the test ends them, recording which party started what in which order. */
function harness() {
  const started: string[] = [];
  const open = new Map<string, () => void>();
  const submit = (
    party: QueryParty,
    name: string,
    signal?: AbortSignal,
    ahead?: boolean,
  ) =>
    party.run(
      () =>
        new Promise<string>(resolve => {
          started.push(name);
          open.set(name, () => resolve(name));
        }),
      signal,
      ahead,
    );
  const end = async (name: string) => {
    const finish = open.get(name);
    if (!finish) throw new Error(`${name} is not running`);
    open.delete(name);
    finish();
    // Let the slot's release and the next task's start run.
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  const settle = async () => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { started, submit, end, settle, running: () => [...open.keys()] };
}

describe('QuerySlots', () => {
  it('lets a request alone use every slot but its share, keeping the share free for the next request', async () => {
    const slots = new QuerySlots(16);
    const h = harness();
    const card = slots.party(4);
    for (let i = 0; i < 27; i++) h.submit(card, `a${i}`);
    await h.settle();
    // A fixed limit per request would stop at 4.
    expect(card.active).toBe(12);
    expect(slots.active).toBe(12);
    expect(slots.queued).toBe(15);

    // A second request starts its share at once, without waiting for the first one's queries.
    const other = slots.party(4);
    for (let i = 0; i < 5; i++) h.submit(other, `b${i}`);
    await h.settle();
    expect(other.active).toBe(4);
    expect(slots.active).toBe(16);
    expect(h.started.filter(n => n.startsWith('b'))).toEqual([
      'b0',
      'b1',
      'b2',
      'b3',
    ]);
  });

  it('runs a request alone past its share as its queries end, in the order it asked', async () => {
    const slots = new QuerySlots(6);
    const h = harness();
    const card = slots.party(2);
    const done = Array.from({ length: 8 }, (_, i) => h.submit(card, `a${i}`));
    await h.settle();
    expect(h.running()).toEqual(['a0', 'a1', 'a2', 'a3']);
    await h.end('a1');
    expect(h.running()).toEqual(['a0', 'a2', 'a3', 'a4']);
    for (const name of ['a0', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7']) {
      await h.end(name);
    }
    expect(await Promise.all(done)).toEqual(h.started);
    expect(h.started).toEqual(['a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7']);
    expect(slots.active).toBe(0);
    expect(slots.queued).toBe(0);
  });

  it('gives a freed slot to the waiting request with the fewest queries in flight, so waiting requests share evenly', async () => {
    const slots = new QuerySlots(8);
    const h = harness();
    const a = slots.party(2);
    const b = slots.party(2);
    const c = slots.party(2);
    for (let i = 0; i < 10; i++) h.submit(a, `a${i}`);
    await h.settle();
    for (let i = 0; i < 10; i++) h.submit(b, `b${i}`);
    await h.settle();
    h.submit(c, 'c0');
    h.submit(c, 'c1');
    await h.settle();
    expect([a.active, b.active, c.active]).toEqual([6, 2, 0]);

    // First-come order would hand a's freed slots back to a's waiting queries; they go to c, which has none in flight.
    await h.end('a0');
    await h.end('a1');
    expect([a.active, b.active, c.active]).toEqual([4, 2, 2]);
    expect(h.started.slice(-2)).toEqual(['c0', 'c1']);

    // a and b at or above their share: a freed slot is lent only while more than the share stays free.
    await h.end('a2');
    await h.end('a3');
    expect([a.active, b.active, c.active]).toEqual([2, 2, 2]);
    expect(slots.active).toBe(6);

    // c is done: the slots above the share are lent evenly, the longest waiting (a) first among equals.
    await h.end('c0');
    expect([a.active, b.active, c.active]).toEqual([3, 2, 1]);
    await h.end('c1');
    expect([a.active, b.active, c.active]).toEqual([3, 3, 0]);
    expect(slots.active).toBe(6);

    // A new request starts at once in the slots kept free.
    const d = slots.party(2);
    h.submit(d, 'd0');
    await h.settle();
    expect(d.active).toBe(1);
    expect(slots.active).toBe(7);
  });

  it('takes a waiting query out of line when its signal aborts, and never runs it', async () => {
    const slots = new QuerySlots(2);
    const h = harness();
    const a = slots.party(2);
    const b = slots.party(2);
    h.submit(a, 'a0');
    h.submit(b, 'b0');
    await h.settle();
    const controller = new AbortController();
    const cut = h.submit(a, 'a1', controller.signal);
    const waits = h.submit(b, 'b1');
    await h.settle();
    expect(slots.queued).toBe(2);
    controller.abort(new Error('deadline'));
    await expect(cut).rejects.toThrow('deadline');
    expect(slots.queued).toBe(1);
    await h.end('a0');
    expect(h.running()).toEqual(['b0', 'b1']);
    await h.end('b0');
    await h.end('b1');
    expect(await waits).toBe('b1');
    expect(h.started).not.toContain('a1');
    expect(slots.active).toBe(0);
    expect(slots.queued).toBe(0);
    // Already aborted: rejected at once, nothing taken.
    await expect(
      h.submit(a, 'a2', AbortSignal.abort(new Error('late'))),
    ).rejects.toThrow('late');
    expect(slots.active).toBe(0);
  });

  it("starts a request's tasks asked ahead before its other waiting ones, in the order they were asked", async () => {
    const slots = new QuerySlots(4);
    const h = harness();
    const a = slots.party(2);
    for (let i = 0; i < 4; i++) h.submit(a, `instant${i}`);
    await h.settle();
    expect(h.running()).toEqual(['instant0', 'instant1']);
    h.submit(a, 'range0', undefined, true);
    h.submit(a, 'instant4');
    h.submit(a, 'range1', undefined, true);
    await h.settle();
    for (const name of ['instant0', 'instant1', 'range0', 'range1']) {
      await h.end(name);
    }
    for (const name of ['instant2', 'instant3', 'instant4']) {
      await h.end(name);
    }
    expect(h.started).toEqual([
      'instant0',
      'instant1',
      'range0',
      'range1',
      'instant2',
      'instant3',
      'instant4',
    ]);

    // Between requests, the one whose oldest task has waited longest goes first, whichever of its tasks is first.
    const pool = new QuerySlots(3);
    const [x, b, c] = [pool.party(2), pool.party(2), pool.party(2)];
    h.submit(x, 'x0');
    h.submit(b, 'b0');
    h.submit(c, 'c0');
    await h.settle();
    h.submit(c, 'c1');
    h.submit(b, 'b1');
    h.submit(c, 'c2', undefined, true);
    await h.settle();
    expect(pool.queued).toBe(3);
    await h.end('x0');
    expect(h.running()).toEqual(['b0', 'c0', 'c2']);
  });

  it('keeps a request to its share when the share is the whole pool', async () => {
    const slots = new QuerySlots(3);
    const h = harness();
    const a = slots.party(3);
    for (let i = 0; i < 5; i++) h.submit(a, `a${i}`);
    await h.settle();
    expect(a.active).toBe(3);
    expect(() => new QuerySlots(0)).toThrow(RangeError);
    expect(() => slots.party(0)).toThrow(RangeError);
  });
});
