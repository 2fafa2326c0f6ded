/**
 * Cost benchmark of the gpu backend against a real Prometheus, on every version the environment names
 * (`GPU_PROMETHEUS_BINARIES`, as the Prometheus integration tests read it: Debian's 2.x in /usr/bin and the 3.x that
 * `scripts/prometheus3 bin` prints), each loaded with generated DCGM and vLLM history through `promtool tsdb
 * create-blocks-from openmetrics`:
 *
 * - **Cost card**: `GET /services/:id/cost?window=30d` for one dedicated service over 30 days of 1-minute data, next
 *   to the raw PromQL the route issues (recorded from the route, then replayed straight to Prometheus all at once,
 *   the route's lower bound; the route takes the process's `concurrency.overall` slots with `perRequest` as its fair
 *   share: alone, up to `overall - perRequest` in flight). Target: route <= 1.1x raw.
 * - **Overview**: `GET /overview` for 10,000 services of every tier: the PromQL query count (and the count for 12
 *   services, which must not be smaller), route time and raw PromQL time. Target: route <= 1.2x raw.
 *
 * Every timed route call goes to a usage service of its own, so the usage service's short-lived cache of
 * measurements (`windowCache.ts`) never answers a timed request without asking Prometheus.
 *
 * Run from the repository root with `yarn bench:cost [--rounds <n>] [--services <n>] [--days <n>] [--smoke]
 * [--out <dir>]`; results go to bench/results/cost.json (`--only overview` or `--only card` measures that part alone
 * and writes nothing).
 */
import { MiddlewareFactory } from '@backstage/backend-defaults/rootHttpRouter';
import { mockServices } from '@backstage/backend-test-utils';
import { ConfigReader } from '@backstage/config';
import express from 'express';
import knexFactory, { Knex } from 'knex';
import { Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { cpus } from 'node:os';
import { demoPlatformConfig, parsePlatform } from '../plugins/gpu-common/src';
import {
  HistoryService,
  HistorySpec,
  historyEnd,
  podName,
  PrometheusBinaries,
  prometheusVersionsUnderTest,
  startPrometheusWithHistory,
} from '../plugins/gpu-backend/src/testUtils/prometheus';
import { allowAllUsageRoutes } from '../plugins/gpu-backend/src/__testUtils__/allowAllUsageRoutes';
import { DatabaseGpuStore } from '../plugins/gpu-backend/src/database';
import { readPrometheusConfig } from '../plugins/gpu-backend/src/metrics/PrometheusConfig';
import {
  seedUsageServices,
  SeededService,
} from '../plugins/gpu-backend/src/usage/__testUtils__/seedUsageServices';
import { AllocationReader } from '../plugins/gpu-backend/src/usage/AllocationReader';
import { CostSnapshotStore } from '../plugins/gpu-backend/src/usage/CostSnapshotStore';
import { UsageService } from '../plugins/gpu-backend/src/usage/UsageService';
import { DateTime } from 'luxon';
import { parseCli } from './cli';
import { quantile } from './stats';

const cli = parseCli();
const ROUNDS = Math.max(1, cli.number('rounds', { full: 15, smoke: 1 }));
const OVERVIEW_SERVICES = cli.number('services', { full: 10_000, smoke: 20 });
const CARD_DAYS = cli.number('days', { full: 30, smoke: 2 });
/**
 * `gpu.prometheus.concurrency.perRequest` of the routes (0: the plugin's default, a share of 4 of the 16 slots: a
 * request alone has up to 12 queries in flight).
 */
const PER_REQUEST_CONCURRENCY = cli.number('per-request-concurrency', {
  full: 0,
  smoke: 0,
});
/** `--only overview` or `--only card`: only that part, printed, no results file (to profile one of them). */
const ONLY = cli.string('only', '');
if (!['', 'overview', 'card'].includes(ONLY)) {
  throw new Error(`--only takes overview or card, not '${ONLY}'`);
}
cli.checkOptions(
  'yarn bench:cost [options]: the cost card and the overview against their raw PromQL, on each Prometheus of GPU_PROMETHEUS_BINARIES',
);
const CARD_TARGET_RATIO = 1.1;
const OVERVIEW_TARGET_RATIO = 1.2;
/**
 * The demo platform with room in every pool for the whole fleet: with the demo's 4 L4 nodes, all but 4 of the
 * dedicated services waited for approval (past physical capacity), at most 20 per team, so 10,000 services could not
 * be stored and at 1,000 most dedicated reservations were pending, not held.
 */
const platform = parsePlatform({
  ...demoPlatformConfig,
  pools: demoPlatformConfig.pools.map(pool => ({ ...pool, maxNodes: 10_000 })),
});

interface Recorded {
  path: string;
  body: string;
}

/** A fetch that records the Prometheus requests it forwards. */
function recordingFetch(log: Recorded[]): typeof fetch {
  return (input, init) => {
    const url = new URL(String(input));
    log.push({ path: url.pathname, body: String(init?.body ?? '') });
    return fetch(input, init);
  };
}

/** Replays recorded PromQL straight to Prometheus, all at once (the route's lower bound), returning ms. */
async function replay(baseUrl: string, queries: Recorded[]): Promise<number> {
  const start = performance.now();
  await Promise.all(
    queries.map(async q => {
      const response = await fetch(`${baseUrl}${q.path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: q.body,
      });
      await response.json();
    }),
  );
  return performance.now() - start;
}

function summary(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    p50Ms: Number(quantile(sorted, 0.5).toFixed(2)),
    p90Ms: Number(quantile(sorted, 0.9).toFixed(2)),
    minMs: Number(sorted[0].toFixed(2)),
  };
}

/** What the usage service reads of the stored services and batch jobs (a bench may hand it fewer services). */
type ServiceReader = Pick<AllocationReader, 'list' | 'get' | 'batchJobs'>;

interface BenchContext {
  prometheusUrl: string;
  ids: Record<string, string>;
  log: Recorded[];
  knex: Knex;
  usage: (reader?: ServiceReader) => UsageService;
  /** GET `path` from a fresh usage service's routes (its caches empty), returning ms. */
  timeRoute: (path: string) => Promise<number>;
}

async function withBackend(
  binaries: PrometheusBinaries,
  spec: HistorySpec,
  services: SeededService[],
  run: (ctx: BenchContext) => Promise<void>,
) {
  const started = performance.now();
  const prometheus = await startPrometheusWithHistory(spec, {
    maxBlockDuration: '744h',
    binaries,
  });
  const loadSeconds = (performance.now() - started) / 1000;
  // Whatever fails from here on, Prometheus is stopped (it would outlive the benchmark), also on Ctrl-C or the smoke
  // run's timeout.
  const onSignal = () => {
    prometheus.stop().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const knex = knexFactory({
    client: 'better-sqlite3',
    connection: { filename: ':memory:' },
    useNullAsDefault: true,
  });
  let server: Server | undefined;
  try {
    const store = await DatabaseGpuStore.create({
      database: mockServices.database({ knex }),
      platform,
    });
    const ids = await seedUsageServices({ store, knex, platform, services });
    const log: Recorded[] = [];
    const now = DateTime.fromSeconds(spec.end, { zone: 'utc' });
    const allocations = new AllocationReader(knex);
    const usage = (reader: ServiceReader = allocations) =>
      new UsageService({
        platform,
        // Every read the usage service makes is in ServiceReader: a reader lacking one fails to compile.
        reader: reader as AllocationReader,
        snapshots: new CostSnapshotStore(knex),
        quotas: store,
        prometheus: readPrometheusConfig(
          new ConfigReader({
            gpu: {
              prometheus: {
                baseUrl: prometheus.url,
                timeout: 60000,
                ...(PER_REQUEST_CONCURRENCY
                  ? { concurrency: { perRequest: PER_REQUEST_CONCURRENCY } }
                  : {}),
              },
            },
          }),
        ),
        fetchImpl: recordingFetch(log),
        now: () => now,
      });
    // The routes the plugin mounts (spec validation, permissions allowing everyone) over the usage service of the
    // moment: each timed request gets a new one, with empty caches, behind the same (warm) router.
    let current = usage();
    const delegate = new Proxy({} as UsageService, {
      get: (_, key: keyof UsageService) => {
        const value = current[key];
        return typeof value === 'function' ? value.bind(current) : value;
      },
    });
    const app = express()
      .use(allowAllUsageRoutes({ usage: delegate, store, platform }))
      .use(
        MiddlewareFactory.create({
          config: mockServices.rootConfig(),
          logger: mockServices.rootLogger(),
        }).error(),
      );
    server = app.listen(0, '127.0.0.1');
    await new Promise(resolve => server!.once('listening', resolve));
    const baseUrl = `http://127.0.0.1:${
      (server!.address() as AddressInfo).port
    }`;
    const timeRoute = async (path: string) => {
      current = usage();
      const start = performance.now();
      const response = await fetch(`${baseUrl}${path}`);
      if (!response.ok) {
        throw new Error(
          `${path}: HTTP ${response.status} ${await response.text()}`,
        );
      }
      await response.json();
      return performance.now() - start;
    };
    process.stdout.write(
      `  Prometheus ${
        binaries.version
      }: history loaded in ${loadSeconds.toFixed(1)} s\n`,
    );
    await run({
      prometheusUrl: prometheus.url,
      ids,
      log,
      usage,
      knex,
      timeRoute,
    });
  } finally {
    server?.close();
    await knex.destroy();
    await prometheus.stop();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  return loadSeconds;
}

async function compare(
  { timeRoute, prometheusUrl, log }: BenchContext,
  routePath: string,
  target: number,
) {
  // Warm up both, then alternate them so machine noise hits both alike.
  log.length = 0;
  await timeRoute(routePath);
  const queries = [...log];
  await replay(prometheusUrl, queries);
  const route: number[] = [];
  const raw: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      route.push(await timeRoute(routePath));
      raw.push(await replay(prometheusUrl, queries));
    } else {
      raw.push(await replay(prometheusUrl, queries));
      route.push(await timeRoute(routePath));
    }
  }
  const routeStats = summary(route);
  const rawStats = summary(raw);
  const ratioP50 = Number((routeStats.p50Ms / rawStats.p50Ms).toFixed(3));
  return {
    queries: queries.length,
    route: routeStats,
    rawPromql: rawStats,
    ratioP50,
    target,
    met: ratioP50 <= target,
  };
}

async function costCard(binaries: PrometheusBinaries) {
  const end = historyEnd(60);
  const days = CARD_DAYS;
  const window = days === 30 ? '30d' : `P${days}D`;
  const chat: HistoryService = {
    name: 'chat',
    namespace: 'ml-serving',
    tier: 'dedicated',
    pods: [{ pod: podName('chat'), hostname: 'l4-node-1', gpu: '0' }],
    utilisation: { mean: 55, amplitude: 25 },
    memoryMiB: { mean: 20000, amplitude: 800 },
    totalMiB: 23034,
    power: { mean: 55, amplitude: 10 },
    tokensPerSecond: 600,
    running: 10,
    waiting: 1,
    kvCache: 0.4,
  };
  const spec: HistorySpec = { end, days, stepSeconds: 60, services: [chat] };
  let result: Awaited<ReturnType<typeof compare>> | undefined;
  const loadSeconds = await withBackend(
    binaries,
    spec,
    [
      {
        name: 'chat',
        team: 'ml-platform',
        namespace: 'ml-serving',
        environment: 'production',
        tier: 'dedicated',
        pool: 'l4-ondemand',
        gpuEquivalents: 1,
        heldAt: new Date((end - 40 * 86400) * 1000).toISOString(),
      },
    ],
    async ctx => {
      result = await compare(
        ctx,
        `/services/${ctx.ids.chat}/cost?window=${window}`,
        CARD_TARGET_RATIO,
      );
    },
  );
  return {
    days,
    window,
    stepSeconds: 60,
    samplesPerSeries: days * 1440 + 1,
    historyLoadSeconds: Number(loadSeconds.toFixed(1)),
    ...result!,
  };
}

/** `count` services over every tier: dedicated L4s, MIG 1g.10gb on A100s, MPS and time-sliced groups of 4. */
function fleet(count: number, end: number) {
  const services: HistoryService[] = [];
  const seeded: SeededService[] = [];
  const heldAt = new Date((end - 3 * 86400) * 1000).toISOString();
  for (let i = 0; i < count; i++) {
    const name = `svc-${String(i).padStart(5, '0')}`;
    const namespace = `team-${i % 20}`;
    const kind = i % 5;
    const util = { mean: 15 + ((i * 37) % 70), amplitude: 5 };
    const base = {
      name,
      namespace,
      tokensPerSecond: 20 + (i % 13) * 10,
      running: i % 4,
      waiting: i % 3,
    };
    if (kind <= 1) {
      services.push({
        ...base,
        tier: 'dedicated',
        pods: [{ pod: podName(name), hostname: `l4-${i}`, gpu: '0' }],
        utilisation: util,
        memoryMiB: { mean: 12000 },
        totalMiB: 23034,
        power: { mean: 50 },
      });
      seeded.push({
        name,
        team: namespace,
        namespace,
        environment: 'production',
        tier: 'dedicated',
        pool: 'l4-ondemand',
        gpuEquivalents: 1,
        heldAt,
      });
    } else if (kind === 2) {
      services.push({
        ...base,
        tier: 'mig',
        pods: [
          {
            pod: podName(name),
            hostname: `a100-${Math.floor(i / 56)}`,
            gpu: String(Math.floor(i / 7) % 8),
            migInstance: String(i % 7),
            migProfile: '1g.10gb',
          },
        ],
        utilisation: util,
        memoryMiB: { mean: 7000 },
        totalMiB: 9728,
      });
      seeded.push({
        name,
        team: namespace,
        namespace,
        environment: 'production',
        tier: 'mig',
        pool: 'a100-mig',
        migProfile: '1g.10gb',
        gpuEquivalents: 1 / 7,
        heldAt,
      });
    } else {
      const tier = kind === 3 ? 'mps' : 'time-sliced';
      const group = Math.floor(i / 20);
      services.push({
        ...base,
        tier,
        pods: [
          {
            pod: podName(name),
            hostname: `${tier}-${group}`,
            gpu: String(i % 4),
          },
        ],
      });
      seeded.push({
        name,
        team: namespace,
        namespace,
        environment: tier === 'mps' ? 'staging' : 'dev',
        tier,
        pool: tier === 'mps' ? 'l4-mps' : 't4-timeslice',
        gpuEquivalents: 0.25,
        heldAt,
      });
    }
  }
  const devices = new Map<string, { hostname: string; gpu: string }>();
  for (const s of services) {
    if (s.tier === 'mps' || s.tier === 'time-sliced') {
      const p = s.pods[0];
      devices.set(`${p.hostname}/${p.gpu}`, {
        hostname: p.hostname,
        gpu: p.gpu,
      });
    }
  }
  const sharedDevices = [...devices.values()].map((d, i) => ({
    ...d,
    utilisation: { mean: 20 + (i % 50), amplitude: 5 },
    memoryMiB: { mean: 12000 },
    totalMiB: 23034,
    power: { mean: 45 },
  }));
  return { services, seeded, sharedDevices };
}

async function overview(binaries: PrometheusBinaries) {
  const end = historyEnd(300);
  const { services, seeded, sharedDevices } = fleet(OVERVIEW_SERVICES, end);
  const spec: HistorySpec = {
    end,
    days: 1,
    stepSeconds: 300,
    services,
    sharedDevices,
  };
  let result: Awaited<ReturnType<typeof compare>> | undefined;
  let queriesForFew = 0;
  let queryCount = 0;
  const loadSeconds = await withBackend(binaries, spec, seeded, async ctx => {
    result = await compare(ctx, '/overview?window=24h', OVERVIEW_TARGET_RATIO);
    queryCount = (await ctx.usage().overview('24h')).queryCount;
    // The same data with only 12 of the services stored (3 of each tier): the query count must not grow.
    const reader = new AllocationReader(ctx.knex);
    const few = {
      get: (id: string) => reader.get(id),
      list: async (filter?: { team?: string; ids?: string[] }) => {
        const all = await reader.list(filter);
        return ['dedicated', 'mig', 'mps', 'time-sliced'].flatMap(tier =>
          all.filter(a => a.service.tier === tier).slice(0, 3),
        );
      },
      batchJobs: (filter: Parameters<AllocationReader['batchJobs']>[0]) =>
        reader.batchJobs(filter),
    };
    queriesForFew = (await ctx.usage(few).overview('24h')).queryCount;
  });
  return {
    services: OVERVIEW_SERVICES,
    days: 1,
    stepSeconds: 300,
    historyLoadSeconds: Number(loadSeconds.toFixed(1)),
    queryCount,
    queryCountFor12Services: queriesForFew,
    /** Every-pod scope above 50 services: a fixed set of queries; a regex of names below, plus 2 per measured window for shared GPUs' neighbours. */
    queryCountBounded: queryCount <= queriesForFew,
    ...result!,
  };
}

/** One binary per major version among those the environment names (GPU_PROMETHEUS_BINARIES, default /usr/bin). */
function prometheusVersions(): PrometheusBinaries[] {
  const { available, missing } = prometheusVersionsUnderTest();
  if (missing.length > 0) throw new Error(missing.join('\n'));
  if (available.length === 0) {
    throw new Error(
      'no Prometheus: set GPU_PROMETHEUS_BINARIES to directories holding prometheus and promtool',
    );
  }
  const byMajor = new Map<number, PrometheusBinaries>();
  for (const binaries of available) {
    if (!byMajor.has(binaries.major)) byMajor.set(binaries.major, binaries);
  }
  return [...byMajor.values()];
}

async function main() {
  const versions = prometheusVersions();
  if (ONLY) {
    for (const binaries of versions) {
      const part =
        ONLY === 'card' ? await costCard(binaries) : await overview(binaries);
      process.stdout.write(`${JSON.stringify(part, null, 2)}\n`);
    }
    return;
  }
  const runs = [];
  for (const binaries of versions) {
    process.stdout.write(
      `Prometheus ${binaries.version}: cost card, one service, ${CARD_DAYS} days of 1-minute data (${ROUNDS} rounds)\n`,
    );
    const card = await costCard(binaries);
    process.stdout.write(`${JSON.stringify(card, null, 2)}\n`);
    process.stdout.write(
      `Prometheus ${binaries.version}: overview, ${OVERVIEW_SERVICES} services (${ROUNDS} rounds)\n`,
    );
    const all = await overview(binaries);
    process.stdout.write(`${JSON.stringify(all, null, 2)}\n`);
    runs.push({
      version: binaries.version,
      major: binaries.major,
      binary: binaries.prometheus,
      costCard: card,
      overview: all,
    });
  }
  const results = {
    generatedAt: new Date().toISOString(),
    smoke: cli.smoke,
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model,
      node: process.version,
    },
    history: 'generated DCGM and vLLM series, backfilled with promtool',
    rounds: ROUNDS,
    prometheus: runs,
  };
  const file = cli.writeResults('cost', results);
  process.stdout.write(`written to ${file}\n`);
}

main().catch(error => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
