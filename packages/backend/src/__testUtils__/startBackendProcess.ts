import { ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { AddressInfo, createServer } from 'node:net';
import path from 'node:path';

const STARTUP_TIMEOUT_MS = 150_000;

/** The real backend (src/index.ts, every plugin) as a child process of its own process group. */
export interface BackendProcess {
  baseUrl: string;
  /** What it has printed so far. */
  log(): string;
  /** SIGKILL: the process ends at once, mid-request, as a crashed or evicted backend does. */
  kill(): Promise<void>;
  /** SIGTERM and wait for it to exit. */
  stop(): Promise<void>;
}

/** A port nothing listens on now (the kernel's choice), so parallel runs of the suite do not collide. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** SQLite in memory: what a backend of the tests uses unless its config names a database. */
export const IN_MEMORY_DATABASE = {
  client: 'better-sqlite3',
  connection: ':memory:',
};

/**
 * Starts the backend with app-config.yaml plus `config` (written to `configFile`), on `port`, and waits until it is
 * ready. The CLI's TypeScript loader without its file watcher, so a failed start-up ends the process. Without
 * `config.backend.database` the database is SQLite in memory ({@link IN_MEMORY_DATABASE}), never the data/ files of
 * app-config.yaml; give `{ client: 'better-sqlite3', connection: { directory } }` for files that outlive the process.
 */
export async function startBackendProcess(options: {
  port: number;
  configFile: string;
  config: Record<string, unknown>;
}): Promise<BackendProcess> {
  const baseUrl = `http://localhost:${options.port}`;
  writeFileSync(
    options.configFile,
    JSON.stringify({
      ...options.config,
      backend: {
        database: IN_MEMORY_DATABASE,
        ...(options.config.backend as object),
        baseUrl,
        listen: { port: options.port },
      },
    }),
  );
  const transform = require.resolve('@backstage/cli/config/nodeTransform.cjs');
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--require',
      transform,
      'src/index.ts',
      '--config',
      '../../app-config.yaml',
      '--config',
      options.configFile,
    ],
    {
      cwd: path.resolve(__dirname, '../..'),
      env: { ...process.env, NODE_ENV: 'development', LOG_LEVEL: 'warn' },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let log = '';
  let exitCode: number | null | undefined;
  const exited = new Promise<void>(resolve =>
    child.on('exit', code => {
      exitCode = code;
      resolve();
    }),
  );
  child.stdout!.on('data', chunk => (log += chunk));
  child.stderr!.on('data', chunk => (log += chunk));
  const signal = async (name: NodeJS.Signals) => {
    if (child.pid && exitCode === undefined) {
      process.kill(-child.pid, name);
      await exited;
    }
  };

  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  for (;;) {
    if (exitCode !== undefined) {
      throw new Error(
        `backend exited with ${exitCode} during start-up:\n${log}`,
      );
    }
    if (Date.now() > deadline) {
      await signal('SIGKILL');
      throw new Error(
        `backend not ready after ${STARTUP_TIMEOUT_MS} ms:\n${log}`,
      );
    }
    const ready = await fetch(`${baseUrl}/.backstage/health/v1/readiness`)
      .then(res => res.ok)
      .catch(() => false);
    if (ready) break;
    await new Promise(resolve => setTimeout(resolve, 500));
  }
  return {
    baseUrl,
    log: () => log,
    kill: () => signal('SIGKILL'),
    stop: () => signal('SIGTERM'),
  };
}
