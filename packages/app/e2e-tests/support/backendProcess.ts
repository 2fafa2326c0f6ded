import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';

/** The repository's root, where the app-config files are. */
export const REPO_ROOT = resolve(__dirname, '../../../..');

/**
 * Starts the Backstage backend of packages/backend with the given app-config files (absolute paths or relative to
 * the repository's root) and environment, in a process group of its own: the CLI's TypeScript loader without its
 * file watcher (as packages/backend/src/boot.test.ts does), so a backend that fails at start-up exits and fails the
 * run at once instead of waiting for the web server timeout.
 *
 * On SIGTERM/SIGINT (Playwright's `gracefulShutdown`) the backend's group is stopped, then `cleanUp` runs, and the
 * process exits; when the backend exits by itself, the same happens with its exit code.
 */
export function runBackendUntilStopped(options: {
  configs: string[];
  env: Record<string, string>;
  cleanUp: () => Promise<void>;
}): ChildProcess {
  const transform = require.resolve('@backstage/cli/config/nodeTransform.cjs');
  const backend = spawn(
    process.execPath,
    [
      '--require',
      transform,
      'src/index.ts',
      ...options.configs.flatMap(file => [
        '--config',
        resolve(REPO_ROOT, file),
      ]),
    ],
    {
      cwd: resolve(REPO_ROOT, 'packages/backend'),
      stdio: 'inherit',
      detached: true,
      env: { ...process.env, NODE_ENV: 'development', ...options.env },
    },
  );

  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    if (backend.exitCode === null && backend.pid) {
      const exited = once(backend, 'exit');
      try {
        process.kill(-backend.pid, 'SIGTERM');
      } catch {
        // already gone
      }
      await Promise.race([exited, new Promise(r => setTimeout(r, 10_000))]);
    }
    await options.cleanUp();
    process.exit(code);
  };
  process.on('SIGTERM', () => stop(0));
  process.on('SIGINT', () => stop(0));
  backend.on('exit', exitCode => stop(exitCode ?? 1));
  return backend;
}
