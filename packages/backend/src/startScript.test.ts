import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const REPO_ROOT = resolve(__dirname, '../../..');
const START = join(REPO_ROOT, 'scripts/start');

function listen(): Promise<{ server: Server; port: number }> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      done({
        server,
        port: typeof address === 'object' && address ? address.port : 0,
      });
    });
  });
}

describe('scripts/start', () => {
  it.each([[['--cluster']], [[]]])(
    'stops before installing or starting anything when a port of the app is taken (args %j)',
    async args => {
      const { server, port } = await listen();
      try {
        const result = spawnSync('bash', [START, ...args], {
          env: { ...process.env, APP_PORTS: `${port}` },
          encoding: 'utf8',
          timeout: 30_000,
        });
        expect(result.status).toBe(1);
        expect(result.stderr).toContain(
          `Port ${port} is already in use (another ./scripts/start or yarn start?)`,
        );
        expect(result.stderr).toContain('Nothing was started.');
        // Not Node's stack, and no cluster was brought up first.
        expect(result.stderr).not.toContain('EADDRINUSE');
        expect(result.stdout + result.stderr).not.toMatch(/local cluster/i);
      } finally {
        server.close();
      }
    },
  );
});

/**
 * The `--cluster` demo's metrics decision (scripts/demo-metrics.sh, sourced by scripts/start once the cluster is up),
 * run on its own with a PATH of only the commands it uses: a full `./scripts/start --cluster` would build and start
 * the local control plane first.
 */
describe('scripts/demo-metrics.sh', () => {
  let dir: string;
  let bin: string;
  let stateDir: string;
  const staleConfig = () => join(stateDir, 'app-config.simulated-metrics.yaml');

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'demo-metrics-'));
    bin = join(dir, 'bin');
    stateDir = join(dir, 'state');
    spawnSync('mkdir', ['-p', bin, stateDir]);
    // Every command the script and lib.sh call, but no prometheus.
    for (const command of [
      'cat',
      'curl',
      'dirname',
      'mkdir',
      'rm',
      'seq',
      'sleep',
    ]) {
      const found = spawnSync('bash', ['-c', `command -v ${command}`], {
        encoding: 'utf8',
      }).stdout.trim();
      if (found) symlinkSync(found, join(bin, command));
    }
    symlinkSync(process.execPath, join(bin, 'node'));
    // What an earlier run with Prometheus left: a config that points the app at a Prometheus not running now.
    writeFileSync(staleConfig(), 'gpu: { prometheus: { simulated: true } }\n');
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function decide(env: Record<string, string> = {}) {
    const bash = spawnSync('bash', ['-c', 'command -v bash'], {
      encoding: 'utf8',
    }).stdout.trim();
    const script = [
      `source ${JSON.stringify(join(REPO_ROOT, 'scripts/lib.sh'))}`,
      'set +euo pipefail',
      `source ${JSON.stringify(join(REPO_ROOT, 'scripts/demo-metrics.sh'))}`,
      'configs=()',
      'demo_metrics',
      'echo "configs=${configs[*]}"',
      'echo "pids=$METRICS_PID$PROMETHEUS_PID"',
    ].join('\n');
    return spawnSync(bash, ['-c', script], {
      env: {
        PATH: bin,
        HOME: dir,
        STATE_DIR: stateDir,
        GPU_CLUSTER_PORT_BASE: '29900',
        ...env,
      },
      encoding: 'utf8',
      timeout: 60_000,
    });
  }

  it('says the demo runs without metrics when Prometheus is not installed, and gives the app no Prometheus', () => {
    const result = decide();
    expect(result.status).toBe(0);
    expect(result.stderr).toContain(
      "No Prometheus installed (apt package 'prometheus', as ./scripts/test installs): the app runs without metrics, so usage and the Waste leaderboard stay empty",
    );
    expect(result.stdout).toContain('configs=\n');
    expect(result.stdout).toContain('pids=\n');
    expect(existsSync(staleConfig())).toBe(false);
    expect(existsSync(join(stateDir, 'prometheus'))).toBe(false);
  });

  it('says so and runs without metrics when Prometheus does not start', () => {
    const fake = join(bin, 'prometheus');
    writeFileSync(
      fake,
      '#!/bin/sh\necho "bind: address already in use" >&2\nexit 1\n',
    );
    chmodSync(fake, 0o755);
    const result = decide();
    expect(result.status).toBe(0);
    expect(result.stderr).toContain(
      `The demo's simulated metrics did not start (logs in ${join(
        stateDir,
        'prometheus',
      )}): running without metrics.`,
    );
    expect(result.stdout).toContain('configs=\n');
    expect(result.stdout).toContain('pids=\n');
    expect(existsSync(staleConfig())).toBe(false);
  });

  it('says the metrics are off with GPU_DEMO_METRICS=0', () => {
    const result = decide({ GPU_DEMO_METRICS: '0' });
    expect(result.stderr).toContain(
      'Simulated metrics off (GPU_DEMO_METRICS=0): the app runs without Prometheus',
    );
    expect(result.stdout).toContain('configs=\n');
    expect(existsSync(staleConfig())).toBe(false);
  });
});
