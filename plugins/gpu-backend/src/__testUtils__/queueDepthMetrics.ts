import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * What vLLM's pods would export for one service: `vllm:num_requests_waiting` per running pod (the model server's
 * queue), with the labels vLLM and the PodMonitor give it (`namespace`, `model_name`, `pod`). The test sets the
 * service's total queue depth; it is spread over the pods `pods()` returns at each scrape (pods at zero export
 * nothing).
 */
export class QueueDepthMetrics {
  private depth = new Map<string, number>();
  private server?: Server;
  url = '';

  constructor(
    private readonly pods: (
      namespace: string,
      service: string,
    ) => Promise<string[]>,
  ) {}

  setDepth(namespace: string, service: string, depth: number) {
    this.depth.set(`${namespace}/${service}`, depth);
  }

  async start(): Promise<void> {
    this.server = createServer(async (_req, res) => {
      const lines = [
        '# HELP vllm:num_requests_waiting Number of requests waiting to be processed.',
        '# TYPE vllm:num_requests_waiting gauge',
      ];
      for (const [key, depth] of this.depth) {
        const [namespace, service] = key.split('/');
        const pods = await this.pods(namespace, service).catch(() => []);
        pods.forEach((pod, i) => {
          const share =
            Math.floor(depth / pods.length) + (i < depth % pods.length ? 1 : 0);
          lines.push(
            `vllm:num_requests_waiting{namespace="${namespace}",model_name="${service}",pod="${pod}"} ${share}`,
          );
        });
      }
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
      res.end(`${lines.join('\n')}\n`);
    });
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.url = `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.close();
    this.server.closeAllConnections();
    await once(this.server, 'close');
  }
}

/** A Prometheus scraping `target` every second, as a cluster's would scrape the pods. */
export interface ScrapingPrometheus {
  url: string;
  stop(): Promise<void>;
}

export async function startScrapingPrometheus(
  prometheus: string,
  target: string,
): Promise<ScrapingPrometheus> {
  const dir = await mkdtemp(join(tmpdir(), 'gpu-prometheus-scrape-'));
  await writeFile(
    join(dir, 'prometheus.yml'),
    [
      'global:',
      '  scrape_interval: 1s',
      '  evaluation_interval: 1s',
      'scrape_configs:',
      '  - job_name: vllm',
      '    honor_labels: true',
      '    static_configs:',
      `      - targets: ['${target}']`,
      '',
    ].join('\n'),
  );
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const port = (probe.address() as AddressInfo).port;
  probe.close();
  await once(probe, 'close');
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    prometheus,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', chunk => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    await rm(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`prometheus exited with ${child.exitCode}: ${stderr}`);
    }
    try {
      if ((await fetch(`${url}/-/ready`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus not ready within 60 s: ${stderr}`);
    }
    await new Promise(r => setTimeout(r, 200));
  }
  return { url, stop };
}
