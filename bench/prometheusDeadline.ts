/**
 * Cost cards against a slow and a silent Prometheus (`yarn bench:prometheus-deadline`, or `yarn bench:all --only
 * prometheus-deadline`): the real backend (bench/httpBackend.ts, every plugin, SQLite in
 * memory) with `gpu.prometheus` pointing at a loopback Prometheus API on this process that answers every query with
 * an empty result after a delay, or never. For each behaviour (`prompt`: at once, `slow`: after `--delay` ms, default
 * 4000, under the 5 s query timeout; `silent`: never), `--cards` cost cards (default 40, each of its own service, so
 * no two share a measurement) are asked at once, `--rounds` times (default 2), while `--trivial` connections (default
 * 4) call `GET /api/gpu/platform` in a loop: the other routes' latency is measured side by side with the cards, and
 * compared with the same loop on an idle backend.
 *
 * Targets: card p99 <= the request deadline (`gpu.prometheus.requestDeadline`, default 8000 ms) + 1 s with a slow and
 * a silent Prometheus; the trivial route's p99 while the cards wait for a slow or silent Prometheus no worse than
 * while they are answered at once (`prompt`: the cards' own CPU cost, side by side), within 1.5x plus 50 ms for
 * scheduling noise. Also reported: each against the idle trivial route, and the cards' p99 with a prompt Prometheus
 * (what the machine needs to compute 40 cards at once, whatever Prometheus does). Results go to
 * `bench/results/prometheus-deadline.json`. `--smoke`: 8 cards, one round, 1 s delay.
 */
import {
  createServer,
  IncomingMessage,
  Server,
  ServerResponse,
} from 'node:http';
import { AddressInfo, Socket } from 'node:net';
import { parseCli } from './cli';
import { startBackend } from './httpBackend';
import { quantile } from './stats';

type Behaviour = 'prompt' | 'slow' | 'silent';

const DEFAULT_DEADLINE_MS = 8000;

/** A loopback Prometheus HTTP API: every query answered with an empty vector or matrix after `delayMs`, or never. */
class LoopbackPrometheus {
  behaviour: Behaviour = 'prompt';
  delayMs = 0;
  queries = 0;
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();

  constructor() {
    this.server = createServer((req, res) => this.answer(req, res));
    this.server.on('connection', socket => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>(ok => this.server.listen(0, '127.0.0.1', ok));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Open connections: queries in flight plus idle keep-alive sockets. */
  get openSockets(): number {
    return this.sockets.size;
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise(ok => this.server.close(() => ok()));
  }

  private answer(req: IncomingMessage, res: ServerResponse) {
    req.resume();
    this.queries += 1;
    if (this.behaviour === 'silent') return; // the socket stays open, unanswered
    const resultType = req.url?.startsWith('/api/v1/query_range')
      ? 'matrix'
      : 'vector';
    const send = () => {
      if (res.destroyed) return;
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({ status: 'success', data: { resultType, result: [] } }),
      );
    };
    const delay = this.behaviour === 'slow' ? this.delayMs : 0;
    if (delay > 0) setTimeout(send, delay);
    else send();
  }
}

function latencySummary(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    requests: sorted.length,
    p50Ms: Math.round(quantile(sorted, 0.5)),
    p99Ms: Math.round(quantile(sorted, 0.99)),
    maxMs: Math.round(sorted[sorted.length - 1] ?? NaN),
  };
}

/** Calls `GET /api/gpu/platform` on `connections` loops until `stop()`; the latencies of the calls. */
function trivialLoad(baseUrl: string, token: string, connections: number) {
  const samples: number[] = [];
  let running = true;
  const loops = Array.from({ length: connections }, async () => {
    while (running) {
      const started = performance.now();
      const res = await fetch(`${baseUrl}/api/gpu/platform`, {
        headers: { authorization: `Bearer ${token}` },
      });
      await res.arrayBuffer();
      if (!res.ok)
        throw new Error(`GET /api/gpu/platform answered ${res.status}`);
      samples.push(performance.now() - started);
    }
  });
  return {
    samples,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** The bench platform: one big L4 pool and one team, so every card is a service of its own within quota. */
function benchPlatform(services: number) {
  return {
    pools: [
      {
        name: 'l4-bench',
        gpuModel: 'L4',
        gpusPerNode: 1,
        maxNodes: services + 10,
        capacityType: 'on-demand',
        pricePerNodeHour: '0.8048',
        nodeLabels: { 'gpu.example.com/pool': 'l4-bench' },
        sharing: { type: 'none' },
      },
    ],
    environments: [
      {
        name: 'dev',
        allowedTiers: ['dedicated'],
        maxDedicatedGpus: 2,
        priorityClass: 'gpu-dev',
        podDisruptionBudget: false,
      },
    ],
    teams: [
      {
        name: 'ml-platform',
        namespaces: ['ml-platform'],
        gpuQuota: { 'l4-bench': services + 10 },
        monthlyBudget: '10000000',
      },
    ],
  };
}

async function main() {
  const cli = parseCli();
  const cards = cli.number('cards', { full: 40, smoke: 8 });
  const rounds = cli.number('rounds', { full: 2, smoke: 1 });
  const delayMs = cli.number('delay', { full: 4000, smoke: 1000 });
  const trivialConnections = cli.number('trivial', { full: 4, smoke: 2 });
  const idleSeconds = cli.number('idle-seconds', { full: 8, smoke: 2 });
  cli.checkOptions(
    'yarn bench:prometheus-deadline [options]: concurrent cost cards with a prompt, slow and silent Prometheus, and a trivial route beside them',
  );
  const behaviours: Behaviour[] = ['prompt', 'slow', 'silent'];

  const prometheus = new LoopbackPrometheus();
  const prometheusUrl = await prometheus.listen();
  const services = cards * rounds * behaviours.length;
  const backend = await startBackend({
    config: {
      gpu: {
        ...benchPlatform(services),
        prometheus: { baseUrl: prometheusUrl },
      },
    },
  });
  const stopAll = async () => {
    await backend.stopAndWait();
    await prometheus.close();
  };
  try {
    const api = async (path: string, init: RequestInit = {}) => {
      const res = await fetch(`${backend.baseUrl}/api/gpu${path}`, {
        ...init,
        headers: {
          authorization: `Bearer ${backend.serviceToken}`,
          'content-type': 'application/json',
        },
      });
      if (!res.ok) {
        throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
      }
      return res.json();
    };
    process.stdout.write(`creating ${services} services\n`);
    const ids: string[] = [];
    for (let i = 0; i < services; i++) {
      const created = await api('/services', {
        method: 'POST',
        body: JSON.stringify({
          request: {
            name: `card-${i}`,
            team: 'ml-platform',
            environment: 'dev',
            model: 'llama-3.1-8b',
            runtime: 'vllm',
            dtype: 'bf16',
            maxModelLen: 8192,
            concurrency: 64,
            replicas: 1,
            tier: 'dedicated',
            pool: 'l4-bench',
          },
        }),
      });
      ids.push(created.id);
    }

    // The trivial route alone: what "unchanged" compares with.
    const idle = trivialLoad(
      backend.baseUrl,
      backend.userToken,
      trivialConnections,
    );
    await new Promise(r => setTimeout(r, idleSeconds * 1000));
    await idle.stop();
    const idleTrivial = latencySummary(idle.samples);

    const scenarios = [];
    let next = 0;
    for (const behaviour of behaviours) {
      prometheus.behaviour = behaviour;
      prometheus.delayMs = delayMs;
      const queriesBefore = prometheus.queries;
      const cardMs: number[] = [];
      const degraded: Record<string, number> = {
        available: 0,
        partial: 0,
        'no-data': 0,
        unavailable: 0,
        'not-configured': 0,
      };
      let peakSockets = 0;
      const trivial = trivialLoad(
        backend.baseUrl,
        backend.userToken,
        trivialConnections,
      );
      const sampler = setInterval(() => {
        peakSockets = Math.max(peakSockets, prometheus.openSockets);
      }, 50);
      for (let round = 0; round < rounds; round++) {
        const batch = ids.slice(next, next + cards);
        next += cards;
        await Promise.all(
          batch.map(async id => {
            const started = performance.now();
            const res = await fetch(
              `${backend.baseUrl}/api/gpu/services/${id}/cost?window=30d`,
              { headers: { authorization: `Bearer ${backend.userToken}` } },
            );
            const body = await res.json();
            cardMs.push(performance.now() - started);
            if (!res.ok) {
              throw new Error(`cost of ${id} answered ${res.status}`);
            }
            if (typeof body.allocationMicros !== 'number') {
              // The card always has allocation cost; without it the answer is not a cost card.
              throw new Error(`cost of ${id} has no allocation cost`);
            }
            const state = body.metrics?.state ?? 'unknown';
            degraded[state] = (degraded[state] ?? 0) + 1;
          }),
        );
      }
      clearInterval(sampler);
      await trivial.stop();
      const card = latencySummary(cardMs);
      const trivialUnderLoad = latencySummary(trivial.samples);
      scenarios.push({
        behaviour,
        prometheusAnswers:
          behaviour === 'slow'
            ? `after ${delayMs} ms`
            : behaviour === 'silent'
            ? 'never'
            : 'at once',
        cards,
        rounds,
        card,
        metricsStates: degraded,
        prometheusQueries: prometheus.queries - queriesBefore,
        peakPrometheusSockets: peakSockets,
        trivialUnderLoad,
        trivialP99VsIdle:
          Math.round((trivialUnderLoad.p99Ms / idleTrivial.p99Ms) * 100) / 100,
      });
      process.stdout.write(
        `${behaviour}: card p50 ${card.p50Ms} ms p99 ${card.p99Ms} ms max ${
          card.maxMs
        } ms (${JSON.stringify(degraded)}), ${
          prometheus.queries - queriesBefore
        } queries, peak ${peakSockets} sockets; trivial p99 ${
          trivialUnderLoad.p99Ms
        } ms under load vs ${idleTrivial.p99Ms} ms idle\n`,
      );
    }
    const prompt = scenarios.find(sc => sc.behaviour === 'prompt')!;
    const targets = Object.fromEntries(
      scenarios
        .filter(sc => sc.behaviour !== 'prompt')
        .map(sc => [
          sc.behaviour,
          {
            cardP99WithinDeadlinePlus1s:
              sc.card.p99Ms <= DEFAULT_DEADLINE_MS + 1000,
            trivialP99NoWorseThanWithPromptPrometheus:
              sc.trivialUnderLoad.p99Ms <=
              prompt.trivialUnderLoad.p99Ms * 1.5 + 50,
          },
        ]),
    );
    const file = cli.writeResults('prometheus-deadline', {
      date: new Date().toISOString(),
      smoke: cli.smoke,
      requestDeadlineMs: DEFAULT_DEADLINE_MS,
      trivialConnections,
      idleTrivial,
      scenarios,
      targets,
    });
    process.stdout.write(`results: ${file}\n`);
  } finally {
    await stopAll();
  }
}

main().catch(error => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
