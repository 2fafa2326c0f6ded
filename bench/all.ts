/**
 * The full benchmarks, one after another, writing bench/results/ and then the README tables from them
 * (`yarn bench:all`). Options: `--only <name,...>` (domain-core, http, cost, apply, prometheus-deadline,
 * controller), `--rounds <n>` for every benchmark that repeats rounds, and any benchmark's own option as
 * `--<name>.<option> <value>`, e.g. `--http.services 10000 --cost.services 10000 --apply.services 100 --controller.kubeconfig <file>`;
 * `--timeout <s>` per benchmark (default 3600). The cost benchmark runs on each Prometheus of
 * GPU_PROMETHEUS_BINARIES (e.g. `/usr/bin:$(scripts/prometheus3 bin)`); the controller benchmark, last, needs a
 * running local cluster (`--controller.kubeconfig`, GPU_TEST_KUBECONFIG or GPU_CLUSTER_DIR).
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { BENCHMARKS, selectBenchmarks } from './benchmarks';
import { parseCli } from './cli';
import { runBenchmark } from './runBenchmark';

/** The arguments of `--<name>.<option> <value>` for benchmark `name`, as `--<option> <value>`. */
function argumentsFor(name: string, argv: readonly string[]): string[] {
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const prefix = `--${name}.`;
    if (argv[i].startsWith(prefix)) {
      args.push(`--${argv[i].slice(prefix.length)}`, argv[i + 1]);
      i++;
    }
  }
  return args;
}

async function main() {
  const cli = parseCli(process.argv, false);
  const benchmarks = selectBenchmarks(cli.string('only', '') || undefined);
  const rounds = cli.string('rounds', '');
  const timeout = cli.number('timeout', { full: 3600, smoke: 3600 });
  cli.checkOptions(
    'yarn bench:all [options] [--<benchmark>.<option> <value> ...]: every benchmark at full size, then the README tables',
    option => BENCHMARKS.some(({ name }) => option.startsWith(`${name}.`)),
  );
  const report: string[] = [];
  for (const benchmark of benchmarks) {
    const args = [
      ...(rounds && benchmark.rounds ? ['--rounds', rounds] : []),
      ...argumentsFor(benchmark.name, process.argv),
    ];
    process.stdout.write(
      `\n=== bench ${benchmark.name} ${args.join(' ')} (${benchmark.what})\n`,
    );
    const seconds = await runBenchmark(benchmark.script, args, timeout);
    report.push(`${benchmark.name}: ${(seconds / 60).toFixed(1)} min`);
  }
  const readme = spawnSync(
    process.execPath,
    ['--require', 'sucrase/register', 'bench/readme.ts'],
    { cwd: resolve(__dirname, '..'), stdio: 'inherit' },
  );
  if (readme.status !== 0) throw new Error('bench/readme.ts failed');
  process.stdout.write(`\n${report.join('\n')}\n`);
}

main().catch(error => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
