import { defineConfig } from '@playwright/test';
import base, { backendWebServer } from './playwright.config';

/**
 * The fleet end-to-end test (packages/app/e2e-tests/fleet): the production build of packages/app (`yarn e2e` builds
 * it), served by a backend that applies to two local control planes (e2e-tests/fleet/startFleetBackend.ts), driven in
 * Debian's Chromium like the other end-to-end tests. `scripts/test` runs it while its control planes are up.
 */
const PORT = Number(process.env.E2E_FLEET_PORT ?? 7027);

export default defineConfig({
  ...base,
  testDir: 'packages/app/e2e-tests/fleet',
  testIgnore: undefined,
  reporter: [
    ['list'],
    ['html', { open: 'never', outputFolder: 'test-results/e2e-fleet-report' }],
  ],
  outputDir: 'test-results/e2e-fleet-output',
  webServer: backendWebServer(
    'packages/app/e2e-tests/fleet/startFleetBackend.ts',
    PORT,
  ),
  use: { ...base.use, baseURL: `http://localhost:${PORT}` },
});
