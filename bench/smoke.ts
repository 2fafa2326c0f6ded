/**
 * Smoke run of every benchmark, for the test command (`yarn bench:smoke`, a step of scripts/test): each benchmark
 * with `--smoke` (small sizes, one round) writing into a directory of its own (default test-results/bench-smoke, so
 * the committed results are never overwritten), then its results file checked against the committed one: every
 * field there, filled (bench/resultShape.ts), and the README tables render from it (bench/readmeTables.ts). It
 * says nothing about speed; it fails when a benchmark no longer runs: a renamed module, a catalogue change, a new
 * rate limit.
 *
 * Options: `--only <name,...>` (domain-core, http, cost, apply, controller, prometheus-deadline), `--out <dir>`,
 * `--timeout <s>` per benchmark (default 300). The cost benchmark runs on each Prometheus of GPU_PROMETHEUS_BINARIES
 * (default /usr/bin); the apply benchmark starts a local control plane of its own (ports 16840-16848) with
 * scripts/cluster; the controller benchmark needs a running one (GPU_TEST_KUBECONFIG, else
 * `$GPU_CLUSTER_DIR/kubeconfig`: in scripts/test, the test command's cluster) and fails when one of its limits
 * breaks.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { selectBenchmarks } from './benchmarks';
import { parseCli, RESULTS_DIR } from './cli';
import { renderTables } from './readmeTables';
import { shapeProblems } from './resultShape';
import { runBenchmark } from './runBenchmark';

const REPO_ROOT = resolve(__dirname, '..');

async function main() {
  const cli = parseCli(process.argv, false);
  const out = resolve(
    REPO_ROOT,
    cli.string('out', join('test-results', 'bench-smoke')),
  );
  const timeout = cli.number('timeout', { full: 300, smoke: 300 });
  const benchmarks = selectBenchmarks(cli.string('only', '') || undefined);
  cli.checkOptions(
    'yarn bench:smoke [options]: every benchmark with --smoke, its results checked against the committed ones',
  );
  const smokeResults: Record<string, unknown> = {};
  const report: string[] = [];
  for (const benchmark of benchmarks) {
    const file = join(out, `${benchmark.name}.json`);
    rmSync(file, { force: true });
    process.stdout.write(
      `\n=== bench smoke: ${benchmark.name} (${benchmark.what})\n`,
    );
    const seconds = await runBenchmark(
      benchmark.script,
      ['--smoke', '--out', out],
      timeout,
    );
    if (!existsSync(file)) {
      throw new Error(
        `bench/${benchmark.script} --smoke finished without writing ${file}`,
      );
    }
    const written = JSON.parse(readFileSync(file, 'utf8'));
    const committedFile = join(RESULTS_DIR, `${benchmark.name}.json`);
    const committed = JSON.parse(readFileSync(committedFile, 'utf8'));
    const problems = shapeProblems(committed, written);
    if (problems.length > 0) {
      throw new Error(
        `${file} lacks fields of the committed bench/results/${
          benchmark.name
        }.json (a full run, yarn bench:all, rewrites that one):\n  ${problems
          .slice(0, 20)
          .join('\n  ')}${
          problems.length > 20 ? `\n  ... ${problems.length - 20} more` : ''
        }`,
      );
    }
    smokeResults[benchmark.name] = written;
    report.push(`${benchmark.name}: ${seconds.toFixed(1)} s, ${file}`);
  }
  // The README tables of the full results render from these results too.
  renderTables(smokeResults);
  process.stdout.write(
    `\nbench smoke passed (every field of the committed results written, README tables render):\n  ${report.join(
      '\n  ',
    )}\n`,
  );
}

main().catch(error => {
  process.stderr.write(`bench smoke failed: ${error?.stack ?? error}\n`);
  process.exit(1);
});
