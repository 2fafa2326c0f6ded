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
  /**
   * Call once every option has been read: with `--help` (or `-h`), prints `usage` and every option read so far with
   * its defaults, then exits; otherwise refuses an option no call read (a typo must not run the full-size default).
   * `forwarded` accepts options this command passes on (`--http.services` in `yarn bench:all`).
   */
  checkOptions(usage: string, forwarded?: (name: string) => boolean): void;
}

export function parseCli(
  argv: readonly string[] = process.argv,
  /** False for commands that run other benchmarks and write no results file of their own (all, smoke). */
  writesResults = true,
): BenchCli {
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
  /** Each option read so far, with its defaults in words for `--help`. */
  const read = new Map<string, string>(
    writesResults
      ? [
          ['smoke', 'small sizes and one round, for the test command'],
          [
            'out',
            `<dir> where the results file goes (default ${relative(
              REPO_ROOT,
              RESULTS_DIR,
            )})`,
          ],
        ]
      : [],
  );
  const out = value('out');
  const resultsDir = out
    ? isAbsolute(out)
      ? out
      : resolve(process.cwd(), out)
    : RESULTS_DIR;
  return {
    smoke,
    number(name, defaults) {
      read.set(
        name,
        `<n> (default ${defaults.full}; with --smoke ${defaults.smoke})`,
      );
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
      read.set(
        name,
        `<value> (default ${fallback === '' ? 'none' : fallback})`,
      );
      return value(name) ?? fallback;
    },
    checkOptions(usage, forwarded = () => false) {
      if (argv.includes('--help') || argv.includes('-h')) {
        const lines = [...read].map(([name, what]) => `  --${name} ${what}`);
        process.stdout.write(`${usage}\n\nOptions:\n${lines.join('\n')}\n`);
        process.exit(0);
      }
      const unknown = argv
        .filter(arg => arg.startsWith('--'))
        .map(arg => arg.slice(2))
        .filter(name => !read.has(name) && !forwarded(name));
      if (unknown.length > 0) {
        throw new Error(
          `unknown option${unknown.length > 1 ? 's' : ''} ${unknown
            .map(name => `--${name}`)
            .join(', ')}; the options are ${[...read.keys()]
            .map(name => `--${name}`)
            .join(', ')} (--help says more)`,
        );
      }
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
