/**
 * The end-to-end tests' web server: a real Prometheus (Debian's `/usr/bin/prometheus`) loaded with two days of
 * generated DCGM and vLLM history for the four-tier scenario of the gpu backend's Prometheus tests, then the
 * Backstage backend (packages/backend, the development start without the file watcher, app-config.yaml and
 * app-config.e2e.yaml) with `gpu.prometheus.baseUrl` pointing at it and `gpu.prometheus.simulated` (generated series:
 * the card and the governance page say 'Simulated metrics — demo data, not measured').
 *
 * Playwright starts its web servers before `globalSetup`, so Prometheus is started here rather than there. On
 * SIGTERM/SIGINT (Playwright's `gracefulShutdown`) the backend's process group is stopped, then Prometheus, and their
 * data directories removed (the backend's SQLite files are in a temporary directory of the run, not data/).
 *
 * Run with `node --require sucrase/register packages/app/e2e-tests/support/startBackendWithPrometheus.ts`.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  fourTierScenario,
  historyEnd,
  startPrometheusWithHistory,
} from '@gpu-platform/backstage-plugin-gpu-backend/testUtils';
import { runBackendUntilStopped } from './backendProcess';

/** Where the tests read the Prometheus URL and the history's last sample time from. */
export const PROMETHEUS_INFO_FILE = 'test-results/e2e-prometheus.json';

async function main() {
  const end = historyEnd(60, 2);
  const prometheus = await startPrometheusWithHistory(
    fourTierScenario({ end, days: 2, stepSeconds: 60 }),
  );
  await mkdir('test-results', { recursive: true });
  await writeFile(
    PROMETHEUS_INFO_FILE,
    JSON.stringify({ url: prometheus.url, end }, null, 2),
  );
  process.stderr.write(`e2e: Prometheus with history at ${prometheus.url}\n`);
  // The backend's SQLite files in a directory of this run (removed when it stops), not the data/ of `yarn start`:
  // runs never see each other's services, nor a developer's.
  const dataDir = await mkdtemp(join(tmpdir(), 'gpu-e2e-data-'));

  runBackendUntilStopped({
    configs: [
      'app-config.yaml',
      // Sign-in as behind oauth2-proxy: every browser context is the catalog user its headers name.
      'app-config.e2e.yaml',
    ],
    env: {
      APP_CONFIG_gpu_prometheus_baseUrl: prometheus.url,
      // Its history is generated, not measured: the app labels the figures as ./scripts/start --cluster's demo does.
      APP_CONFIG_gpu_prometheus_simulated: 'true',
      APP_CONFIG_backend_database_connection_directory: dataDir,
      // The guest of examples/org.yaml (member of ml-platform and platform-team), not the default
      // user:development/guest that belongs to no team.
      APP_CONFIG_auth_providers_guest_userEntityRef: 'user:default/guest',
    },
    cleanUp: async () => {
      await prometheus.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  });
}

main().catch(error => {
  process.stderr.write(
    `e2e: could not start Prometheus and the backend: ${
      error.stack ?? error
    }\n`,
  );
  process.exit(1);
});
