import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

const REPO_ROOT = resolve(__dirname, '..');

/**
 * Runs `bench/<script>` with `args` as `yarn bench*` would (`node --require sucrase/register`), its output passed
 * through; resolves with its run time in seconds, rejects when it fails or outlives `timeoutSeconds` (then it is
 * stopped with SIGTERM, which the benchmarks answer by stopping what they started).
 */
export function runBenchmark(
  script: string,
  args: string[],
  timeoutSeconds: number,
): Promise<number> {
  const started = Date.now();
  return new Promise((ok, fail) => {
    const child = spawn(
      process.execPath,
      ['--require', 'sucrase/register', `bench/${script}`, ...args],
      { cwd: REPO_ROOT, stdio: ['ignore', 'inherit', 'inherit'] },
    );
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
    }, timeoutSeconds * 1000);
    child.on('error', error => {
      clearTimeout(timer);
      fail(error);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const seconds = (Date.now() - started) / 1000;
      if (timedOut) {
        fail(new Error(`bench/${script} took more than ${timeoutSeconds} s`));
      } else if (code !== 0) {
        fail(
          new Error(
            `bench/${script} ${args.join(' ')} failed (${
              signal ? `signal ${signal}` : `exit code ${code}`
            })`,
          ),
        );
      } else {
        ok(seconds);
      }
    });
  });
}
