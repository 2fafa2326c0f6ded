/**
 * Starts the real backend (packages/backend/src/index.ts, every plugin, SQLite in memory) as a child process on a
 * free port, the way packages/backend/src/boot.test.ts does, with a static service token for the benchmark.
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const BACKEND_DIR = resolve(__dirname, '../packages/backend');
const STARTUP_TIMEOUT_MS = 180_000;

/** A running backend. */
export interface BenchBackend {
  baseUrl: string;
  /** Token of a guest user (the auth backend's guest provider). */
  userToken: string;
  /** Static external-access token: a service principal, which acts for any team. */
  serviceToken: string;
  /** CPU seconds (user + system) the backend process has used so far; undefined where /proc is unavailable. */
  cpuSeconds(): number | undefined;
  stop(): void;
  /** Sends `signal` to the backend's process group (SIGKILL: a replica lost mid-work) and resolves once it exited. */
  kill(signal: NodeJS.Signals): Promise<void>;
  /** Stops the backend and resolves once its process has exited (SIGKILL after `timeoutMs`). */
  stopAndWait(timeoutMs?: number): Promise<void>;
}

const CLOCK_TICKS_PER_SECOND = Number(
  (() => {
    try {
      return execFileSync('getconf', ['CLK_TCK']).toString().trim();
    } catch {
      return '100';
    }
  })(),
);

function processCpuSeconds(pid: number): number | undefined {
  try {
    // Fields after the command name (which may contain spaces): utime and stime are the 12th and 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const server = createServer();
    server.on('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? ok(address.port)
          : fail(new Error('no port')),
      );
    });
  });
}

/** What {@link startBackend} adds to app-config.yaml. */
export interface BenchBackendOptions {
  /** More config files (paths from the repository root), after app-config.yaml. */
  configFiles?: string[];
  /** More config (top-level keys other than `backend`), after those files. */
  config?: Record<string, unknown>;
  /** `backend.database` (default SQLite in memory: every run starts empty). */
  database?: Record<string, unknown>;
  /** Adds `GET /api/bench-constant/constant`, an authenticated route answering a constant (bench/constantRoute.cjs). */
  constantRoute?: boolean;
}

export async function startBackend(
  options: BenchBackendOptions = {},
): Promise<BenchBackend> {
  const port = await freePort();
  const baseUrl = `http://localhost:${port}`;
  const serviceToken = randomBytes(24).toString('base64url');
  const configFile = join(
    mkdtempSync(join(tmpdir(), 'gpu-bench-')),
    'app-config.bench.yaml',
  );
  writeFileSync(
    configFile,
    JSON.stringify({
      ...options.config,
      backend: {
        baseUrl,
        listen: { port },
        // Not the data/ files of app-config.yaml: every benchmark run starts empty.
        database: options.database ?? {
          client: 'better-sqlite3',
          connection: ':memory:',
        },
        auth: {
          externalAccess: [
            {
              type: 'static',
              options: { token: serviceToken, subject: 'gpu-bench' },
            },
          ],
        },
      },
    }),
  );
  const transform = require.resolve('@backstage/cli/config/nodeTransform.cjs', {
    paths: [BACKEND_DIR],
  });
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--require',
      transform,
      options.constantRoute
        ? resolve(__dirname, 'constantRoute.cjs')
        : 'src/index.ts',
      '--config',
      '../../app-config.yaml',
      ...(options.configFiles ?? []).flatMap(file => [
        '--config',
        resolve(__dirname, '..', file),
      ]),
      '--config',
      configFile,
    ],
    {
      cwd: BACKEND_DIR,
      env: {
        ...process.env,
        NODE_ENV: 'development',
        LOG_LEVEL: 'warn',
        // e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile the backend under load
        NODE_OPTIONS: process.env.BENCH_BACKEND_NODE_OPTIONS ?? '',
      },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let log = '';
  let exitCode: number | null | undefined;
  child.stdout!.on('data', chunk => (log += chunk));
  child.stderr!.on('data', chunk => (log += chunk));
  const exited = new Promise<void>(resolveExit =>
    child.on('exit', code => {
      exitCode = code;
      resolveExit();
    }),
  );
  const stop = () => {
    if (child.pid && exitCode === undefined) {
      process.kill(-child.pid, 'SIGTERM');
    }
  };
  // The backend runs in a process group of its own: stop it when the benchmark ends, also on Ctrl-C or a timeout's
  // SIGTERM (after any handler of the benchmark's own, which may have more to stop).
  process.once('exit', stop);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      stop();
      if (process.listenerCount(signal) === 0) process.exit(130);
    });
  }

  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  for (;;) {
    if (exitCode !== undefined) {
      throw new Error(
        `backend exited with ${exitCode} during start-up:\n${log}`,
      );
    }
    // A plugin that fails at start-up fails the backend, which may wait for the others before it exits.
    if (log.includes('Backend startup failed')) {
      stop();
      throw new Error(`backend start-up failed:\n${log}`);
    }
    if (Date.now() > deadline) {
      stop();
      throw new Error(
        `backend not ready after ${STARTUP_TIMEOUT_MS} ms:\n${log}`,
      );
    }
    const ready = await fetch(`${baseUrl}/.backstage/health/v1/readiness`)
      .then(res => res.ok)
      .catch(() => false);
    if (ready) break;
    await new Promise(r => setTimeout(r, 500));
  }

  const refresh = await fetch(
    `${baseUrl}/api/auth/guest/refresh?env=development`,
    { headers: { 'x-requested-with': 'XMLHttpRequest' } },
  );
  if (!refresh.ok) {
    stop();
    throw new Error(
      `guest sign-in failed: ${refresh.status} ${await refresh.text()}`,
    );
  }
  const { backstageIdentity } = await refresh.json();
  return {
    baseUrl,
    userToken: backstageIdentity.token,
    serviceToken,
    cpuSeconds: () => processCpuSeconds(child.pid!),
    stop,
    kill: async signal => {
      if (child.pid && exitCode === undefined) {
        process.kill(-child.pid, signal);
      }
      await exited;
    },
    stopAndWait: async (timeoutMs = 15_000) => {
      if (exitCode !== undefined) return;
      stop();
      const timer = setTimeout(() => {
        if (child.pid && exitCode === undefined) {
          process.kill(-child.pid, 'SIGKILL');
        }
      }, timeoutMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** One request to the backend as its service principal: the status and the body, parsed when it is JSON. */
export async function callBackend(
  backend: BenchBackend,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${backend.baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${backend.serviceToken}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON
  }
  return { status: res.status, body: parsed };
}
