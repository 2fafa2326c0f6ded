/**
 * HTTP benchmark of the gpu backend: starts the real backend (bench/httpBackend.ts), then with autocannon measures
 * `POST /api/gpu/quote` next to a minimal authenticated route of the same backend (`GET
 * /api/bench-constant/constant`, bench/constantRoute.cjs: the auth check, then a constant) at 50 connections,
 * alternating runs, and the creation throughput of
 * `POST /api/gpu/services` with `--services` already stored. Run from the repository root with
 * `yarn bench:http [--duration <s>] [--rounds <n>] [--services <n>] [--created <n>] [--smoke] [--out <dir>]`;
 * results go to bench/results/http.json.
 */
import { demoPlatformConfig } from '@gpu-platform/backstage-plugin-gpu-common';
import autocannon from 'autocannon';
import knexFactory from 'knex';
import { cpus } from 'node:os';
import { parseCli } from './cli';
import { BenchBackend, callBackend, startBackend } from './httpBackend';

const cli = parseCli();
const CONNECTIONS = 50;
// Smoke runs last 3 s: at 50 connections on a busy machine a quote can take over a second, and a run with no
// answer has no latency or CPU per request to write.
const DURATION_S = cli.number('duration', { full: 6, smoke: 3 });
const WARMUP_S = cli.number('warmup', { full: 2, smoke: 1 });
const ROUNDS = Math.max(1, cli.number('rounds', { full: 5, smoke: 1 }));
const EXISTING_SERVICES = cli.number('services', {
  full: 10_000,
  smoke: 20,
});
const CREATED_SERVICES = cli.number('created', { full: 300, smoke: 20 });
const TEAMS = Math.max(1, cli.number('teams', { full: 100, smoke: 3 }));
const TARGET_RATIO = 1.5;
const CREATION_TARGET_PER_SECOND = 200;
const DATABASES = cli.string('databases', 'sqlite,postgres').split(',');
const POSTGRES_URL = cli.string(
  'postgres',
  process.env.BACKSTAGE_TEST_DATABASE_POSTGRES15_CONNECTION_STRING ??
    'postgresql://postgres:postgres@127.0.0.1:5432',
);
cli.checkOptions(
  'yarn bench:http [options]: the real backend over HTTP: quote against a minimal route, creation throughput',
);

/** The report summariser, quoted over every pool of app-config's platform. */
const QUOTE_REQUEST = {
  name: 'summariser',
  team: 'ml-platform',
  model: 'llama-3.1-8b',
  runtime: 'vllm',
  dtype: 'bf16',
  maxModelLen: 8192,
  concurrency: 64,
  replicas: 2,
  environment: 'production',
  expectedTokensPerSecond: 600,
};

function serviceRequest(name: string, team = QUOTE_REQUEST.team) {
  return {
    ...QUOTE_REQUEST,
    name,
    team,
    replicas: 1,
    tier: 'dedicated',
    pool: 'l4-ondemand',
  };
}

/**
 * app-config's pools (the demo platform's), with the on-demand L4 pool as large as the teams' quota there: admission
 * checks a pool's free capacity at create, and the benchmark stores and creates more services than 4 L4s hold.
 */
const BENCH_POOLS = demoPlatformConfig.pools.map(pool =>
  pool.name === 'l4-ondemand' ? { ...pool, maxNodes: 100_000 } : pool,
);

/**
 * `count` teams for the backend's config (`gpu.teams`, replacing app-config's): the quote's team, ml-platform, and
 * `bench-team-<n>`, each with room for its share of the stored services and the created ones.
 */
function benchTeams(count: number) {
  const room = { 'l4-ondemand': 100_000 };
  return [
    {
      name: QUOTE_REQUEST.team,
      namespaces: [QUOTE_REQUEST.team],
      gpuQuota: room,
      monthlyBudget: '1000000000',
    },
    ...Array.from({ length: Math.max(0, count - 1) }, (_, i) => ({
      name: `bench-team-${i}`,
      namespaces: [`bench-team-${i}`],
      gpuQuota: room,
      monthlyBudget: '1000000000',
    })),
  ];
}

interface Run {
  p50Ms: number;
  p99Ms: number;
  requestsPerSecond: number;
  requests: number;
  /** Backend CPU time per request: unlike latency, barely affected by what else the machine runs. */
  cpuMsPerRequest?: number;
}

async function load(
  backend: BenchBackend,
  options: {
    method: 'GET' | 'POST';
    path: string;
    body?: unknown;
    seconds: number;
  },
): Promise<Run> {
  const cpuBefore = backend.cpuSeconds();
  const result = await autocannon({
    url: `${backend.baseUrl}${options.path}`,
    method: options.method,
    connections: CONNECTIONS,
    duration: options.seconds,
    headers: {
      authorization: `Bearer ${backend.userToken}`,
      'content-type': 'application/json',
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(
      `${options.method} ${options.path}: ${result.non2xx} non-2xx responses, ${result.errors} errors`,
    );
  }
  if (result['2xx'] === 0) {
    throw new Error(
      `${options.method} ${options.path}: no answer within ${options.seconds} s (--duration)`,
    );
  }
  const cpuAfter = backend.cpuSeconds();
  return {
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requestsPerSecond: result.requests.average,
    requests: result['2xx'],
    cpuMsPerRequest:
      cpuBefore === undefined || cpuAfter === undefined
        ? undefined
        : round3(((cpuAfter - cpuBefore) * 1000) / result['2xx']),
  };
}

/** bench/constantRoute.cjs: the auth check every gpu route makes, then a constant. */
const TRIVIAL_PATH = '/api/bench-constant/constant';
const trivial = (backend: BenchBackend, seconds = DURATION_S) =>
  load(backend, { method: 'GET', path: TRIVIAL_PATH, seconds });
const quote = (backend: BenchBackend, seconds = DURATION_S) =>
  load(backend, {
    method: 'POST',
    path: '/api/gpu/quote',
    body: QUOTE_REQUEST,
    seconds,
  });

/** Trivial and quote runs in turn, the order swapped every round, so drifting machine load hits both alike. */
async function alternate(backend: BenchBackend, rounds: number) {
  const runs = { trivial: [] as Run[], quote: [] as Run[] };
  for (let round = 0; round < rounds; round++) {
    const order =
      round % 2 === 0
        ? (['trivial', 'quote'] as const)
        : (['quote', 'trivial'] as const);
    for (const which of order) {
      runs[which].push(
        await (which === 'trivial' ? trivial(backend) : quote(backend)),
      );
    }
  }
  const summary = (list: Run[]) => ({
    p50Ms: median(list.map(r => r.p50Ms)),
    p99Ms: median(list.map(r => r.p99Ms)),
    requestsPerSecond: Math.round(median(list.map(r => r.requestsPerSecond))),
    cpuMsPerRequest: list.every(r => r.cpuMsPerRequest !== undefined)
      ? round3(median(list.map(r => r.cpuMsPerRequest!)))
      : undefined,
    runs: list,
  });
  const result = { trivial: summary(runs.trivial), quote: summary(runs.quote) };
  const ratio = round2(result.quote.p99Ms / result.trivial.p99Ms);
  const cpuRatio =
    result.quote.cpuMsPerRequest && result.trivial.cpuMsPerRequest
      ? round2(result.quote.cpuMsPerRequest / result.trivial.cpuMsPerRequest)
      : undefined;
  return {
    ...result,
    p99Ratio: ratio,
    meetsTarget: ratio <= TARGET_RATIO,
    cpuPerRequestRatio: cpuRatio,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? sorted[middle]
    : (sorted[middle - 1] + sorted[middle]) / 2;
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

async function api(
  backend: BenchBackend,
  method: string,
  path: string,
  body?: unknown,
) {
  const res = await callBackend(backend, method, path, body);
  if (res.status >= 300) {
    throw new Error(
      `${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`,
    );
  }
  return res.body;
}

/** Stores `count` services through the API, 10 at a time, spread over the teams; checks that all are listed. */
async function seedServices(
  backend: BenchBackend,
  count: number,
  teams: Array<{ name: string }>,
) {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      await api(backend, 'POST', '/api/gpu/services', {
        request: serviceRequest(
          `seed-${index}`,
          teams[index % teams.length].name,
        ),
      });
    }
  };
  await Promise.all(Array.from({ length: 10 }, worker));
  let listed = 0;
  let cursor: string | undefined;
  do {
    const page = await api(
      backend,
      'GET',
      `/api/gpu/services?limit=200${
        cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''
      }`,
    );
    listed += page.items.length;
    cursor = page.nextCursor;
  } while (cursor);
  if (listed !== count) {
    throw new Error(`expected ${count} stored services, found ${listed}`);
  }
}

/** POST /services for `count` new services (unique names), as fast as the backend takes them. */
async function creation(backend: BenchBackend, count: number) {
  let index = 0;
  const cpuBefore = backend.cpuSeconds();
  const started = Date.now();
  // autocannon reports a run of `amount` requests at its next one-second tick, so its end is not the last answer's.
  let lastAnswerAt = started;
  const result = await autocannon({
    url: backend.baseUrl,
    connections: 10,
    amount: count,
    headers: {
      authorization: `Bearer ${backend.serviceToken}`,
      'content-type': 'application/json',
    },
    requests: [
      {
        method: 'POST',
        path: '/api/gpu/services',
        setupRequest: request => ({
          ...request,
          body: JSON.stringify({ request: serviceRequest(`bench-${index++}`) }),
        }),
        onResponse: () => {
          lastAnswerAt = Date.now();
        },
      },
    ],
  });
  const seconds = (lastAnswerAt - started) / 1000;
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(
      `POST /services: ${result.non2xx} non-2xx responses, ${result.errors} errors`,
    );
  }
  return {
    existingServices: EXISTING_SERVICES,
    created: result['2xx'],
    connections: 10,
    seconds: round2(seconds),
    perSecond: round2(result['2xx'] / seconds),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    cpuMsPerService:
      cpuBefore === undefined
        ? undefined
        : round3(((backend.cpuSeconds()! - cpuBefore) * 1000) / result['2xx']),
  };
}

/** `backend.database` of each database the creation is measured on. */
function databaseConfig(database: string): {
  config: Record<string, unknown>;
  drop?: () => Promise<void>;
} {
  if (database === 'sqlite') {
    return {
      config: { client: 'better-sqlite3', connection: ':memory:' },
    };
  }
  if (database === 'postgres') {
    // A prefix of its own, so the run's databases (one per plugin) are new, and dropped afterwards.
    const prefix = `bench_${process.pid}_${Date.now()}_`;
    const connection = POSTGRES_URL;
    return {
      config: { client: 'pg', connection, prefix },
      drop: async () => {
        const knex = knexFactory({ client: 'pg', connection });
        try {
          const { rows } = await knex.raw(
            'SELECT datname FROM pg_database WHERE datname LIKE ?',
            [`${prefix}%`],
          );
          for (const { datname } of rows as Array<{ datname: string }>) {
            await knex.raw('DROP DATABASE IF EXISTS ?? WITH (FORCE)', [
              datname,
            ]);
          }
        } finally {
          await knex.destroy();
        }
      },
    };
  }
  throw new Error(`--databases: sqlite or postgres, got ${database}`);
}

function printLatency(
  title: string,
  latency: Awaited<ReturnType<typeof alternate>>,
) {
  console.log(title);
  console.table({
    [`GET ${TRIVIAL_PATH}`]: {
      p50Ms: latency.trivial.p50Ms,
      p99Ms: latency.trivial.p99Ms,
      cpuMsPerRequest: latency.trivial.cpuMsPerRequest,
    },
    'POST /api/gpu/quote': {
      p50Ms: latency.quote.p50Ms,
      p99Ms: latency.quote.p99Ms,
      cpuMsPerRequest: latency.quote.cpuMsPerRequest,
    },
  });
  console.log(
    `p99 quote / p99 trivial = ${latency.p99Ratio} (target <= ${TARGET_RATIO}); ` +
      `CPU per request quote / trivial = ${latency.cpuPerRequestRatio}`,
  );
}

/**
 * On each database: start the backend, store the services (timed: the creation rate as the store fills), create
 * more (timed, 10 connections). On the first, quote and trivial latency before and after storing them.
 */
async function main() {
  const teams = benchTeams(TEAMS);
  let latency: Awaited<ReturnType<typeof alternate>> | undefined;
  let withServices: Awaited<ReturnType<typeof alternate>> | undefined;
  const creations = [];
  for (const [index, database] of DATABASES.entries()) {
    const { config, drop } = databaseConfig(database);
    const backend = await startBackend({
      constantRoute: true,
      config: { gpu: { teams, pools: BENCH_POOLS } },
      database: config,
    });
    try {
      if (index === 0) {
        // Warm up both routes (JIT, connection pools) without recording.
        await trivial(backend, WARMUP_S);
        await quote(backend, WARMUP_S);
        latency = await alternate(backend, ROUNDS);
        printLatency('Nothing stored', latency);
      }
      const seedStarted = Date.now();
      const cpuBeforeSeed = backend.cpuSeconds();
      await seedServices(backend, EXISTING_SERVICES, teams);
      const seedSeconds = (Date.now() - seedStarted) / 1000;
      const seedCpu = backend.cpuSeconds();
      console.log(
        `${database}: stored ${EXISTING_SERVICES} services of ${teams.length} teams in ${seedSeconds} s`,
      );
      if (index === 0) {
        withServices = await alternate(backend, ROUNDS);
        printLatency(
          `${EXISTING_SERVICES} services of ${teams.length} teams stored`,
          withServices,
        );
      }
      const created = await creation(backend, CREATED_SERVICES);
      console.table({ [`POST /api/gpu/services (${database})`]: created });
      creations.push({
        database,
        seeding: {
          services: EXISTING_SERVICES,
          connections: 10,
          seconds: round2(seedSeconds),
          perSecond: round2(EXISTING_SERVICES / seedSeconds),
          cpuMsPerService:
            cpuBeforeSeed === undefined || seedCpu === undefined
              ? undefined
              : round3(((seedCpu - cpuBeforeSeed) * 1000) / EXISTING_SERVICES),
        },
        ...created,
        target: CREATION_TARGET_PER_SECOND,
        met: created.perSecond >= CREATION_TARGET_PER_SECOND,
      });
    } finally {
      await backend.stopAndWait();
      await drop?.();
    }
  }

  const results = {
    benchmark: 'gpu backend over HTTP',
    date: new Date().toISOString(),
    smoke: cli.smoke,
    machine: { cpus: cpus().length, node: process.version },
    settings: {
      connections: CONNECTIONS,
      durationSeconds: DURATION_S,
      warmupSeconds: WARMUP_S,
      rounds: ROUNDS,
      servicesStored: EXISTING_SERVICES,
      teams: teams.length,
      servicesCreated: CREATED_SERVICES,
      databases: DATABASES,
    },
    trivialRoute: `GET ${TRIVIAL_PATH} (signed-in guest; the auth check of every gpu route, then a constant serialised)`,
    quoteRoute:
      'POST /api/gpu/quote (the report summariser over every pool of app-config)',
    latency: { ...latency!, targetP99Ratio: TARGET_RATIO },
    latencyWithServicesStored: {
      services: EXISTING_SERVICES,
      teams: teams.length,
      database: DATABASES[0],
      ...withServices!,
      targetP99Ratio: TARGET_RATIO,
    },
    creation: creations,
    creationMode:
      'dry-run (no cluster configured): validate, quote, reserve, render, store',
  };
  console.log(`Wrote ${cli.writeResults('http', results)}`);
}

main().catch(error => {
  console.error(error);
  process.exit(1);
});
