import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { CircuitBreaker } from './CircuitBreaker';
import { PrometheusClient } from './PrometheusClient';
import { QuerySlots } from './QuerySlots';

/** A loopback Prometheus API that answers an empty vector after `delayMs`, or never when `delayMs` is Infinity. */
async function loopbackPrometheus() {
  const state = { delayMs: 0, received: 0 };
  const server: Server = createServer((req, res) => {
    req.resume();
    state.received += 1;
    if (!Number.isFinite(state.delayMs)) return;
    setTimeout(() => {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          status: 'success',
          data: { resultType: 'vector', result: [] },
        }),
      );
    }, state.delayMs);
  });
  await new Promise<void>(ok => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    state,
    baseUrl: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>(ok => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

describe('Prometheus queries under a request deadline and a circuit breaker', () => {
  let prometheus: Awaited<ReturnType<typeof loopbackPrometheus>>;
  beforeEach(async () => {
    prometheus = await loopbackPrometheus();
  });
  afterEach(() => prometheus.close());

  const client = (
    limits: ConstructorParameters<typeof PrometheusClient>[2],
    timeoutMs = 1000,
  ) =>
    new PrometheusClient(
      { baseUrl: prometheus.baseUrl, timeoutMs },
      fetch,
      limits,
    );

  it("ends every query of a request at the request's deadline, waiting ones included, with a reason", async () => {
    prometheus.state.delayMs = 2000;
    const budgetMs = 300;
    const started = Date.now();
    const perRequest = client(
      {
        perRequest: 2,
        // Alone, a client uses all of the shared slots but its share: 2 of 4.
        overall: new QuerySlots(4),
        deadline: { at: Date.now() + budgetMs, budgetMs },
      },
      5000,
    );
    const results = await Promise.all(
      Array.from({ length: 6 }, () => perRequest.query('up', 1)),
    );
    const elapsed = Date.now() - started;
    expect(elapsed).toBeLessThan(budgetMs + 250);
    for (const result of results) {
      expect(result).toEqual({
        ok: false,
        reason: "Prometheus did not answer within this request's 300 ms",
      });
    }
    // Only the two that got a slot were sent; the four waiting gave up their place.
    expect(prometheus.state.received).toBe(2);
  });

  it("does not make a request wait behind another request's slow queries past its own deadline", async () => {
    prometheus.state.delayMs = 700;
    const overall = new QuerySlots(2);
    const slow = client({ perRequest: 2, overall });
    const slowCard = Promise.all([slow.query('a', 1), slow.query('b', 1)]);
    await new Promise(r => setTimeout(r, 20));
    const budgetMs = 200;
    const started = Date.now();
    const other = client({
      perRequest: 2,
      overall,
      deadline: { at: Date.now() + budgetMs, budgetMs },
    });
    expect(await other.query('c', 1)).toMatchObject({ ok: false });
    expect(Date.now() - started).toBeLessThan(budgetMs + 200);
    expect((await slowCard).every(r => r.ok)).toBe(true);
    expect(overall.active).toBe(0);
    expect(overall.queued).toBe(0);
  });

  it('opens the circuit after consecutive timeouts, answers at once while open, and closes after a probe that is answered', async () => {
    let now = 0;
    const breaker = new CircuitBreaker(
      { failures: 3, openMs: 10_000 },
      () => now,
    );
    prometheus.state.delayMs = Infinity;
    const silent = client({ breaker }, 100);
    for (let i = 0; i < 3; i++) {
      expect(await silent.query('up', 1)).toEqual({
        ok: false,
        reason: 'Prometheus did not answer within 100 ms',
      });
    }
    expect(breaker.state).toBe('open');
    const sent = prometheus.state.received;
    const started = Date.now();
    const refused = await silent.query('up', 1);
    expect(Date.now() - started).toBeLessThan(50);
    expect(refused).toEqual({
      ok: false,
      reason:
        'Prometheus left 3 queries in a row without an answer; it is asked again in 10 s',
    });
    expect(prometheus.state.received).toBe(sent);

    // Half-open: one probe goes through; it times out, so the circuit opens again.
    now = 10_000;
    expect(breaker.state).toBe('half-open');
    const [probe, whileProbing] = await Promise.all([
      silent.query('up', 1),
      silent.query('up', 1),
    ]);
    expect(probe).toMatchObject({
      ok: false,
      reason: expect.stringContaining('100 ms'),
    });
    expect(whileProbing).toMatchObject({
      ok: false,
      reason: expect.stringContaining('when the query probing it answers'),
    });
    expect(prometheus.state.received).toBe(sent + 1);
    expect(breaker.state).toBe('open');

    // Prometheus is back: the next probe is answered and the circuit closes.
    now = 20_000;
    prometheus.state.delayMs = 0;
    expect(await silent.query('up', 1)).toMatchObject({ ok: true });
    expect(breaker.state).toBe('closed');
    expect(await silent.query('up', 1)).toMatchObject({ ok: true });
  });

  it('counts a query cut by the request deadline as neither an answer nor a failure', async () => {
    const breaker = new CircuitBreaker({ failures: 1, openMs: 10_000 });
    prometheus.state.delayMs = Infinity;
    const budgetMs = 100;
    const cut = client(
      { breaker, deadline: { at: Date.now() + budgetMs, budgetMs } },
      5000,
    );
    expect(await cut.query('up', 1)).toMatchObject({ ok: false });
    expect(breaker.state).toBe('closed');
  });
});
