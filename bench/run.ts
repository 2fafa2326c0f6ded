/**
 * Benchmarks the gpu domain core: quote latency against a 50-pool platform and the placement planner on mixes of
 * 100, 1,000 and 10,000 services. Run from the repository root with `yarn bench` (or
 * `node --require sucrase/register bench/run.ts [--name <name>] [--iterations <n>] [--mixes <n,n,...>]
 * [--rounds <n>] [--smoke] [--out <dir>]`); results go to `bench/results/<name>.json` and a table is printed.
 */
import { cpus } from 'node:os';
import {
  compactQuote,
  PlacementPlan,
  planPlacement,
  quoteService,
  ServiceRequest,
  TeamUsage,
} from '../plugins/gpu-common/src';
import { plannerItemsFor } from '../plugins/gpu-common/src/placement/plannerItemFor';
import { generatePlatform } from './generatePlatform';
import { generateServices } from './generateServices';
import { generateSliceMix } from './generateSliceMix';
import { parseCli } from './cli';
import { createRandom } from './random';
import { quantile, timeInterleaved } from './stats';

const POOLS = 50;
const SEED = 20261129;

const cli = parseCli();
const name = cli.string('name', 'domain-core');
const iterations = cli.number('iterations', { full: 20_000, smoke: 300 });
/** Planner runs per mix (the median is reported). */
const rounds = Math.max(1, cli.number('rounds', { full: 3, smoke: 1 }));
const MIXES = cli
  .string('mixes', cli.smoke ? '50,200' : '100,1000,10000')
  .split(',')
  .map(Number);
if (MIXES.some(count => !Number.isInteger(count) || count <= 0)) {
  throw new Error(`--mixes must be positive integers, got ${MIXES}`);
}
cli.checkOptions(
  'yarn bench [options]: the quote and the placement planner of gpu-common, in process',
);
const platform = generatePlatform(createRandom(SEED), POOLS);

/** The report summariser, quoted over every pool. */
const request: ServiceRequest = {
  name: 'summariser',
  team: platform.teams[0].name,
  model: 'llama-3.1-8b',
  runtime: 'vllm',
  dtype: 'bf16',
  maxModelLen: 8192,
  concurrency: 64,
  replicas: 2,
  environment: 'production',
  expectedTokensPerSecond: 600,
};
const usage: TeamUsage = {
  // One GPU (5040 GPU units) held on each pool the team has quota on.
  reservedGpuUnits: Object.fromEntries(
    Object.keys(platform.teams[0].gpuQuota).map(pool => [pool, 5040]),
  ),
  committedMonthlyCost: 2_000_000_000,
};

/** The trivial endpoint the quote is compared with: echo a field of the request. */
function trivialEndpoint(body: ServiceRequest): { name: string; ok: boolean } {
  return { name: body.name, ok: true };
}

function latency(samples: number[]) {
  return {
    p50Micros: round(quantile(samples, 0.5), 2),
    p99Micros: round(quantile(samples, 0.99), 2),
    maxMicros: round(samples[samples.length - 1], 2),
  };
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

const warmup = Math.min(2000, Math.ceil(iterations / 10));
const sample = quoteService(platform, request, usage);
const [baseline, quote, quoteAndJson] = timeInterleaved(
  [
    () => JSON.stringify(trivialEndpoint(request)),
    () => quoteService(platform, request, usage),
    () => JSON.stringify(quoteService(platform, request, usage)),
  ],
  iterations,
  warmup,
);
const quoteResult = {
  pools: platform.pools.length,
  options: sample.options.length,
  unavailable: sample.unavailable.length,
  /** `POST /quote` (`detail=full`, the default): every option and unavailable slice in full. */
  jsonBytes: JSON.stringify(sample).length,
  /** `POST /quote?detail=summary`: a row per tier and pool, what the tier step shows. */
  summaryJsonBytes: JSON.stringify(compactQuote(sample)).length,
  /**
   * `POST /quote` with the recommended row's tier and pool in the request: the full quote of the one row the tier
   * picker shows in detail.
   */
  rowDetailJsonBytes: sample.recommended
    ? JSON.stringify(
        quoteService(
          platform,
          {
            ...request,
            tier: sample.recommended.slice.tier,
            pool: sample.recommended.slice.pool,
          },
          usage,
        ),
      ).length
    : undefined,
  /** Rows of the summary: tiers and pools with an option, and without one. */
  summaryChoices: compactQuote(sample).choices.length,
  summaryUnavailable: compactQuote(sample).unavailable.length,
  recommended: sample.recommended && {
    tier: sample.recommended.slice.tier,
    pool: sample.recommended.slice.pool,
    migProfile: sample.recommended.slice.migProfile,
    gpusPerReplica: sample.recommended.slice.gpusPerReplica,
  },
  iterations,
  baseline: latency(baseline),
  quote: latency(quote),
  quoteAndJson: latency(quoteAndJson),
};

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
}

function summarise(plan: PlacementPlan) {
  const replicasByTier: Record<string, number> = {};
  for (const assignment of plan.assignments) {
    replicasByTier[assignment.tier] =
      (replicasByTier[assignment.tier] ?? 0) + assignment.replicas;
  }
  return {
    placed: plan.assignments.length,
    unplaced: plan.unplaced.length,
    replicasByTier,
    poolsUsed: Object.keys(plan.gpusUsed.byPool).length,
    gpusUsed: plan.gpusUsed.total,
    lowerBound: plan.lowerBound.total,
    ratio: round(plan.ratio, 4),
    worstPool: Object.entries(plan.gpusUsed.byPool)
      .map(([pool, used]) => ({
        pool,
        gpusUsed: used,
        lowerBound: plan.lowerBound.byPool[pool],
        ratio: round(used / plan.lowerBound.byPool[pool], 4),
      }))
      .sort((a, b) => b.ratio - a.ratio)[0],
    allDedicatedGpus: plan.allDedicatedGpus,
    gpusSaved: plan.gpusSaved,
    savedPercent: round(
      (100 * plan.gpusSaved) / Math.max(1, plan.allDedicatedGpus),
      1,
    ),
  };
}

/** Service requests: each service takes the cheapest slice its environment allows. */
const plannerResults = MIXES.map(count => {
  const services = generateServices(
    createRandom(SEED + count),
    platform,
    count,
  );
  const runs = rounds;
  const optionMillis: number[] = [];
  const packMillis: number[] = [];
  const cpuMillis: number[] = [];
  let plan = planPlacement(platform, []);
  for (let run = 0; run < runs; run++) {
    const cpuStart = process.cpuUsage();
    const start = process.hrtime.bigint();
    const items = plannerItemsFor(platform, services);
    const packStart = process.hrtime.bigint();
    plan = planPlacement(platform, items);
    const end = process.hrtime.bigint();
    const cpu = process.cpuUsage(cpuStart);
    optionMillis.push(Number(packStart - start) / 1e6);
    packMillis.push(Number(end - packStart) / 1e6);
    cpuMillis.push((cpu.user + cpu.system) / 1000);
  }
  return {
    mix: 'service requests',
    services: count,
    replicas: services.reduce((sum, s) => sum + s.replicas, 0),
    ...summarise(plan),
    optionsMillis: round(median(optionMillis), 1),
    packMillis: round(median(packMillis), 1),
    totalMillis: round(median(optionMillis) + median(packMillis), 1),
    /** The process's CPU time for options and packing (median): on a busy machine, the wall time includes waiting. */
    cpuMillis: round(median(cpuMillis), 1),
  };
});

/** Packing stress: random slices of random pools, so every pool packs a mixture of sizes. */
const stressResults = MIXES.map(count => {
  const items = generateSliceMix(createRandom(SEED - count), platform, count);
  const runs = rounds;
  const packMillis: number[] = [];
  const cpuMillis: number[] = [];
  let plan = planPlacement(platform, []);
  for (let run = 0; run < runs; run++) {
    const cpuStart = process.cpuUsage();
    const start = process.hrtime.bigint();
    plan = planPlacement(platform, items);
    packMillis.push(Number(process.hrtime.bigint() - start) / 1e6);
    const cpu = process.cpuUsage(cpuStart);
    cpuMillis.push((cpu.user + cpu.system) / 1000);
  }
  return {
    mix: 'random slices',
    services: count,
    replicas: items.reduce((sum, s) => sum + s.replicas, 0),
    ...summarise(plan),
    optionsMillis: 0,
    packMillis: round(median(packMillis), 1),
    totalMillis: round(median(packMillis), 1),
    cpuMillis: round(median(cpuMillis), 1),
  };
});

const results = {
  name,
  date: new Date().toISOString(),
  node: process.version,
  cpu: `${cpus()[0]?.model ?? 'unknown'} x ${cpus().length}`,
  seed: SEED,
  smoke: cli.smoke,
  plannerRounds: rounds,
  quote: quoteResult,
  planner: [...plannerResults, ...stressResults],
};

const file = cli.writeResults(name, results);

function table(rows: Array<Record<string, string | number>>): string {
  const columns = Object.keys(rows[0]);
  const widths = columns.map(c =>
    Math.max(c.length, ...rows.map(r => String(r[c]).length)),
  );
  const line = (cells: string[]) =>
    cells.map((cell, i) => cell.padStart(widths[i])).join('  ');
  return [
    line(columns),
    line(widths.map(w => '-'.repeat(w))),
    ...rows.map(r => line(columns.map(c => String(r[c])))),
  ].join('\n');
}

const q = quoteResult;
const quoteTitle =
  `Quote: the report summariser against ${q.pools} pools ` +
  `(${q.options} options, ${q.unavailable} unavailable, ${q.jsonBytes} bytes of JSON; summary ${q.summaryJsonBytes} bytes, ${q.summaryChoices} tiers and pools with an option, ${q.summaryUnavailable} without), ` +
  `${q.iterations} calls each, interleaved`;
const quoteRatio = round(q.quote.p99Micros / q.baseline.p99Micros, 1);
process.stdout.write(
  `${quoteTitle}\n${table([
    { call: 'trivial endpoint (JSON)', ...q.baseline },
    { call: 'quoteService', ...q.quote },
    { call: 'quoteService + JSON', ...q.quoteAndJson },
  ])}\np99 quoteService / p99 trivial: ${quoteRatio}x (in-process, no HTTP)\n\n`,
);
process.stdout.write(
  `Planner on ${POOLS} pools\n${table(
    results.planner.map(r => ({
      mix: r.mix,
      services: r.services,
      replicas: r.replicas,
      unplaced: r.unplaced,
      gpusUsed: r.gpusUsed,
      lowerBound: r.lowerBound,
      ratio: r.ratio,
      'worst pool': r.worstPool ? r.worstPool.ratio : '-',
      allDedicated: r.allDedicatedGpus,
      gpusSaved: `${r.gpusSaved} (${r.savedPercent}%)`,
      'options ms': r.optionsMillis,
      'pack ms': r.packMillis,
      'total ms': r.totalMillis,
      'CPU ms': r.cpuMillis,
    })),
  )}\n\nWrote ${file}\n`,
);
