import { execFile, spawn } from 'node:child_process';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** Where Debian's PostgreSQL 15 server binaries live (`postgresql-15`). */
const POSTGRES_BIN =
  process.env.GPU_TEST_POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';

/** A PostgreSQL server of one test file, in a temporary directory, that the test may restart or stop. */
export interface PrivatePostgres {
  /** knex `connection` of `backend.database`. */
  connection: { host: string; port: number; user: string; password: string };
  /** Restarts the server (fast shutdown: every connection is cut) and waits until it accepts connections. */
  restart(): Promise<void>;
  /** Stops the server and removes its directory. */
  stop(): Promise<void>;
  /**
   * Stops the server and removes its directory once this test process has ended (a detached watcher does it), for a
   * server that a stopped backend's scheduler may still query: stopped earlier, those queries fail and are logged
   * after the tests are done, which makes Jest fail the run.
   */
  stopWhenProcessEnds(): void;
}

/**
 * Starts a PostgreSQL server of its own on `port` (loopback, trust authentication), so a test can restart it without
 * disturbing the shared one. As root, the server runs as the `postgres` user (PostgreSQL refuses root).
 */
export async function startPrivatePostgres(
  port = 17520,
): Promise<PrivatePostgres> {
  const dir = await mkdtemp(join(tmpdir(), 'gpu-private-postgres-'));
  const data = join(dir, 'data');
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const { stdout } = await promisify(execFile)('id', ['-u', 'postgres']);
    const { stdout: gid } = await promisify(execFile)('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const run = async (tool: string, args: string[]) => {
    const command = join(POSTGRES_BIN, tool);
    await (asRoot
      ? promisify(execFile)('runuser', [
          '-u',
          'postgres',
          '--',
          command,
          ...args,
        ])
      : promisify(execFile)(command, args));
  };
  const ctl = (...args: string[]) =>
    run('pg_ctl', [
      '-D',
      data,
      '-l',
      join(dir, 'server.log'),
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`,
      '-w',
      ...args,
    ]);
  await run('initdb', [
    '-D',
    data,
    '-U',
    'postgres',
    '--auth=trust',
    '-E',
    'UTF8',
  ]);
  await ctl('start');
  return {
    connection: {
      host: '127.0.0.1',
      port,
      user: 'postgres',
      password: 'postgres',
    },
    restart: () => ctl('-m', 'fast', 'restart'),
    async stop() {
      await ctl('-m', 'immediate', 'stop').catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
    stopWhenProcessEnds() {
      const pgCtl = `${join(
        POSTGRES_BIN,
        'pg_ctl',
      )} -D '${data}' -m immediate -w stop`;
      const stop = asRoot ? `runuser -u postgres -- ${pgCtl}` : pgCtl;
      spawn(
        'sh',
        [
          '-c',
          `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; ${stop}; rm -rf '${dir}'`,
        ],
        { detached: true, stdio: 'ignore' },
      ).unref();
    },
  };
}
