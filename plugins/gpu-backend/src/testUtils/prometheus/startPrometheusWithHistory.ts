import { ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PrometheusBinaries } from './binaries';
import { HistorySpec, openMetricsLines } from './history';

const PROMETHEUS = process.env.PROMETHEUS_BIN ?? '/usr/bin/prometheus';
const PROMTOOL = process.env.PROMTOOL_BIN ?? '/usr/bin/promtool';

/**
 * A running Prometheus loaded with generated history.
 *
 * @public
 */
export interface PrometheusWithHistory {
  /** Base URL, e.g. `http://127.0.0.1:40123`. */
  url: string;
  /** Unix seconds of the last sample. */
  end: number;
  spec: HistorySpec;
  /** Stops Prometheus (by its PID) and removes its data. */
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (!address || typeof address === 'string') throw new Error('No free port');
  return address.port;
}

async function writeLines(
  path: string,
  lines: Iterable<string>,
): Promise<void> {
  const out = createWriteStream(path);
  let buffer = '';
  for (const line of lines) {
    buffer += `${line}\n`;
    if (buffer.length > 1 << 20) {
      if (!out.write(buffer)) await once(out, 'drain');
      buffer = '';
    }
  }
  out.end(buffer);
  await once(out, 'finish');
}

async function waitForReady(
  url: string,
  child: ChildProcess,
  log: () => string,
): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`prometheus exited with ${child.exitCode}: ${log()}`);
    }
    try {
      const response = await fetch(`${url}/-/ready`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise(resolve => setTimeout(resolve, 100));
  }
  throw new Error(`prometheus not ready within 60 s: ${log()}`);
}

/**
 * The last sample time to use: `hoursAgo` hours before now (samples must be older than about an hour to be
 * backfilled), aligned down to the step.
 *
 * @public
 */
export function historyEnd(stepSeconds = 60, hoursAgo = 2): number {
  const end = Math.floor(Date.now() / 1000) - hoursAgo * 3600;
  return end - (end % stepSeconds);
}

/**
 * Generates DCGM and vLLM `history` as OpenMetrics (`stepSeconds` 300 and `end` two hours ago unless given),
 * backfills it with `promtool tsdb create-blocks-from openmetrics`, starts `prometheus` (`options.binaries`; by default
 * Debian's `/usr/bin/prometheus`) on a free port over those blocks and waits until it is ready. Call `stop()` when done (in afterAll).
 *
 * @example
 * ```ts
 * const prometheus = await startPrometheusWithHistory(fourTierScenario({ days: 2 }));
 * // gpu.prometheus.baseUrl: prometheus.url; query at prometheus.end
 * await prometheus.stop();
 * ```
 *
 * @public
 */
export async function startPrometheusWithHistory(
  history: Omit<HistorySpec, 'end' | 'stepSeconds'> &
    Partial<Pick<HistorySpec, 'end' | 'stepSeconds'>>,
  options: {
    /**
     * Longest block promtool writes as a Go duration (default `24h`; hours, not days). promtool reads the input once per block, so long histories load
     * faster with longer blocks, at the cost of holding a block's samples in memory.
     */
    maxBlockDuration?: string;
    /** The `prometheus` and `promtool` to run (default `PROMETHEUS_BIN`/`PROMTOOL_BIN` or Debian's `/usr/bin`). */
    binaries?: Pick<PrometheusBinaries, 'prometheus' | 'promtool'>;
    /**
     * The OpenMetrics lines to backfill instead of the spec's (e.g. the demo's simulated series at the spec's sample
     * times); the spec then only gives `end`, `days` and `stepSeconds`.
     */
    lines?: Iterable<string>;
  } = {},
): Promise<PrometheusWithHistory> {
  const { prometheus, promtool } = options.binaries ?? {
    prometheus: PROMETHEUS,
    promtool: PROMTOOL,
  };
  const stepSeconds = history.stepSeconds ?? 300;
  const spec: HistorySpec = {
    ...history,
    stepSeconds,
    end: history.end ?? historyEnd(stepSeconds),
  };
  const dir = await mkdtemp(join(tmpdir(), 'gpu-prometheus-'));
  const data = join(dir, 'data');
  const input = join(dir, 'history.om');
  try {
    await writeLines(input, options.lines ?? openMetricsLines(spec));
    await promisify(execFile)(
      promtool,
      [
        'tsdb',
        'create-blocks-from',
        'openmetrics',
        '--quiet',
        // Day-long blocks by default: promtool reads the input once per block, so 2 h blocks make long histories slow.
        `--max-block-duration=${options.maxBlockDuration ?? '24h'}`,
        input,
        data,
      ],
      {
        maxBuffer: 16 << 20,
      },
    );
    await rm(input);
    await writeFile(
      join(dir, 'prometheus.yml'),
      'global:\n  scrape_interval: 1m\nscrape_configs: []\n',
    );
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const lookback = Math.max(300, spec.stepSeconds * 2);
  const child = spawn(
    prometheus,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${data}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--storage.tsdb.retention.time=3650d',
      `--query.lookback-delta=${lookback}s`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', chunk => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const stop = async () => {
    if (child.exitCode === null && child.pid) {
      const exited = once(child, 'exit');
      process.kill(child.pid, 'SIGTERM');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitForReady(url, child, () => stderr);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, end: spec.end, spec, stop };
}
