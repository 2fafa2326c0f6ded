/**
 * Rewrites the results tables of bench/README.md from the committed results in bench/results/ (`yarn bench:readme`;
 * `yarn bench:all` runs it after the benchmarks). `--check` fails instead when the README's tables differ.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BENCHMARKS } from './benchmarks';
import { RESULTS_DIR } from './cli';
import { renderTables, replaceTables } from './readmeTables';

const README = join(__dirname, 'README.md');

const results = Object.fromEntries(
  BENCHMARKS.map(b => [b.name, join(RESULTS_DIR, `${b.name}.json`)] as const)
    .filter(([, file]) => existsSync(file))
    .map(([name, file]) => [name, JSON.parse(readFileSync(file, 'utf8'))]),
);
const before = readFileSync(README, 'utf8');
const after = replaceTables(before, renderTables(results));
if (process.argv.includes('--check')) {
  if (after !== before) {
    process.stderr.write(
      'bench/README.md: the results tables differ from bench/results/ (run yarn bench:readme)\n',
    );
    process.exit(1);
  }
} else {
  writeFileSync(README, after);
  process.stdout.write(
    `bench/README.md: ${Object.keys(results).join(', ')} tables rewritten\n`,
  );
}
