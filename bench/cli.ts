/**
 * The command line every benchmark shares: `--smoke` (small sizes and one round, for the test command: it proves
 * the benchmark still runs and writes every field, not how fast anything is), `--out <dir>` (where the results file
 * goes; default bench/results), and the benchmark's own `--<name> <value>` options, whose defaults differ between
 * the full run and the smoke run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';

const REPO_ROOT = resolve(__dirname, '..');

/** Where committed results live. */
export const RESULTS_DIR = join(__dirname, 'results');

export interface BenchCli {
  /** True with `--smoke`. */
  smoke: boolean;
  /** `--<name> <n>`, else the default of the mode (full or smoke). */
  number(name: string, defaults: { full: number; smoke: number }): number;
  /** `--<name> <value>`, else `fallback`. */
  string(name: string, fallback: string): string;
  /** Writes `<out>/<name>.json` and returns its path relative to the repository root. */
  writeResults(name: string, results: unknown): string;
}

export function parseCli(argv: readonly string[] = process.argv): BenchCli {
  const smoke = argv.includes('--smoke');
  const value = (name: string): string | undefined => {
    const index = argv.indexOf(`--${name}`);
    if (index < 0) return undefined;
    const given = argv[index + 1];
    if (given === undefined || given.startsWith('--')) {
      throw new Error(`--${name} needs a value`);
    }
    return given;
  };
  const out = value('out');
  const resultsDir = out
    ? isAbsolute(out)
      ? out
      : resolve(process.cwd(), out)
    : RESULTS_DIR;
  return {
    smoke,
    number(name, defaults) {
      const given = value(name);
      if (given === undefined) return smoke ? defaults.smoke : defaults.full;
      const parsed = Number(given);
      if (!Number.isFinite(parsed) || parsed < 0) {
        throw new Error(
          `--${name} must be a non-negative number, got ${given}`,
        );
      }
      return parsed;
    },
    string(name, fallback) {
      return value(name) ?? fallback;
    },
    writeResults(name, results) {
      mkdirSync(resultsDir, { recursive: true });
      const file = join(resultsDir, `${name}.json`);
      writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
      const fromRoot = relative(REPO_ROOT, file);
      return fromRoot.startsWith('..') ? file : fromRoot;
    },
  };
}
