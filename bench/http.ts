/**
 * HTTP benchmark of the gpu backend: starts the real backend (bench/httpBackend.ts), then with autocannon measures
 * `POST /api/gpu/quote` next to a trivial authenticated route of the same backend (`GET /api/gpu/platform`: auth
 * check and a preloaded object serialised) at 50 connections, alternating runs, and the creation throughput of
 * `POST /api/gpu/services` with 1,000 services already stored. Run from the repository root with
 * `yarn bench:http [--duration <s>] [--rounds <n>] [--services <n>]`; results go to bench/results/http.json.
 */
import autocannon from 'autocannon';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { BenchBackend, startBackend } from './httpBackend';

function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}

const CONNECTIONS = 50;
const DURATION_S = argument('duration', 6);
const ROUNDS = argument('rounds', 5);
const EXISTING_SERVICES = argument('services', 1000);
const CREATED_SERVICES = 300;
const TARGET_RATIO = 2;

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

function serviceRequest(name: string) {
  return {
    ...QUOTE_REQUEST,
    name,
    replicas: 1,
    tier: 'dedicated',
    pool: 'l4-ondemand',
  };
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

const trivial = (backend: BenchBackend, seconds = DURATION_S) =>
  load(backend, { method: 'GET', path: '/api/gpu/platform', seconds });
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
  const res = await fetch(`${backend.baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${backend.serviceToken}`,
      'content-type': 'application/json',
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) {
    throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  }
  return res.json();
}

/** Stores `count` services through the API, 10 at a time, after giving the team room for them. */
async function seedServices(backend: BenchBackend, count: number) {
  await api(backend, 'PUT', '/api/gpu/teams/ml-platform/quota', {
    pools: { 'l4-ondemand': 100_000 },
    monthlyBudget: '1000000000',
  });
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const name = `seed-${next++}`;
      await api(backend, 'POST', '/api/gpu/services', {
        request: serviceRequest(name),
      });
    }
  };
  await Promise.all(Array.from({ length: 10 }, worker));
  const { items } = await api(
    backend,
    'GET',
    '/api/gpu/services?team=ml-platform',
  );
  if (items.length !== count) {
    throw new Error(`expected ${count} stored services, found ${items.length}`);
  }
}

/** POST /services for `count` new services (unique names), as fast as the backend takes them. */
async function creation(backend: BenchBackend, count: number) {
  let index = 0;
  const cpuBefore = backend.cpuSeconds();
  const started = Date.now();
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
      },
    ],
  });
  const seconds = (Date.now() - started) / 1000;
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

async function main() {
  const backend = await startBackend();
  try {
    // Warm up both routes (JIT, connection pools) without recording.
    await trivial(backend, 2);
    await quote(backend, 2);
    const latency = await alternate(backend, ROUNDS);
    console.table({
      'GET /api/gpu/platform': {
        p50Ms: latency.trivial.p50Ms,
        p99Ms: latency.trivial.p99Ms,
      },
      'POST /api/gpu/quote': {
        p50Ms: latency.quote.p50Ms,
        p99Ms: latency.quote.p99Ms,
      },
    });
    console.log(
      `p99 quote / p99 trivial = ${latency.p99Ratio} (target <= ${TARGET_RATIO}); ` +
        `CPU per request quote / trivial = ${latency.cpuPerRequestRatio}`,
    );

    await seedServices(backend, EXISTING_SERVICES);
    const withServices = await alternate(backend, 1);
    const created = await creation(backend, CREATED_SERVICES);
    console.table({ 'POST /api/gpu/services': created });

    const results = {
      benchmark: 'gpu backend over HTTP',
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, node: process.version },
      settings: {
        connections: CONNECTIONS,
        durationSeconds: DURATION_S,
        rounds: ROUNDS,
      },
      trivialRoute:
        'GET /api/gpu/platform (signed-in guest; auth check and the preloaded platform serialised)',
      quoteRoute:
        'POST /api/gpu/quote (the report summariser over every pool of app-config)',
      latency: { ...latency, targetP99Ratio: TARGET_RATIO },
      latencyWith1000Services: {
        trivialP99Ms: withServices.trivial.p99Ms,
        quoteP99Ms: withServices.quote.p99Ms,
        p99Ratio: withServices.p99Ratio,
        trivialCpuMsPerRequest: withServices.trivial.cpuMsPerRequest,
        quoteCpuMsPerRequest: withServices.quote.cpuMsPerRequest,
        cpuPerRequestRatio: withServices.cpuPerRequestRatio,
      },
      creation: {
        ...created,
        mode: 'dry-run (no cluster configured): validate, quote, reserve, render, store',
      },
    };
    mkdirSync(join(__dirname, 'results'), { recursive: true });
    writeFileSync(
      join(__dirname, 'results', 'http.json'),
      `${JSON.stringify(results, null, 2)}\n`,
    );
    console.log('Wrote bench/results/http.json');
  } finally {
    backend.stop();
  }
}

main().catch(error => {
  console.error(error);
  process.exit(1);
});
