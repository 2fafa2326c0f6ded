import { defineConfig } from '@playwright/test';
import { identityHeaders } from './packages/app/e2e-tests/support/users';

/**
 * End-to-end tests: the production build of packages/app, served by the real backend on :7007 (SQLite files in a
 * temporary directory of the run, dry-run cluster, app-config.e2e.yaml), driven in Debian's Chromium. `yarn e2e`
 * builds the app first. Users sign in as behind oauth2-proxy: each browser context sends the X-Forwarded-User of its
 * catalog user (e2e-tests/support/users.ts); by default the org's guest, a test opens contexts for alice and bob.
 */
// E2E_PORT runs the suite on another port when 7007 is taken (e.g. by a development backend).
const PORT = Number(process.env.E2E_PORT ?? 7007);

/**
 * A backend started by the TypeScript file `script` as Playwright's web server on `port`: ready when its readiness
 * check answers, stopped with SIGTERM (the script stops what it started).
 */
export function backendWebServer(script: string, port: number) {
  return {
    command: `node --require sucrase/register ${script}`,
    gracefulShutdown: { signal: 'SIGTERM' as const, timeout: 20_000 },
    url: `http://localhost:${port}/.backstage/health/v1/readiness`,
    reuseExistingServer: !process.env.CI,
    timeout: 180_000,
    env: {
      APP_CONFIG_app_baseUrl: `http://localhost:${port}`,
      APP_CONFIG_backend_baseUrl: `http://localhost:${port}`,
      APP_CONFIG_backend_listen_port: String(port),
    },
    stdout: 'ignore' as const,
    stderr: 'pipe' as const,
  };
}

export default defineConfig({
  testDir: 'packages/app/e2e-tests',
  // The fleet test needs two local control planes: playwright.fleet.config.ts runs it (yarn e2e:fleet).
  testIgnore: 'fleet/**',
  timeout: 90_000,
  expect: { timeout: 30_000 },
  forbidOnly: !!process.env.CI,
  retries: 0,
  workers: 1,
  reporter: [
    ['list'],
    ['html', { open: 'never', outputFolder: 'test-results/e2e-report' }],
  ],
  outputDir: 'test-results/e2e-output',
  // Prometheus loaded with generated history first, then the backend pointing at it (Playwright starts web servers
  // before globalSetup, so this cannot be a globalSetup).
  webServer: backendWebServer(
    'packages/app/e2e-tests/support/startBackendWithPrometheus.ts',
    PORT,
  ),
  use: {
    baseURL: `http://localhost:${PORT}`,
    // Who the default context (page and request fixtures) is; see app-config.e2e.yaml.
    extraHTTPHeaders: identityHeaders('guest'),
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
});
