import { defineConfig } from '@playwright/test';

/**
 * The install test's browser half: the new app that scripts/install-test created in a temporary directory, built and
 * served by its own backend (app-backend) at INSTALL_TEST_URL, driven in Debian's Chromium. The script starts and
 * stops that backend; this config starts nothing.
 */
const baseURL = process.env.INSTALL_TEST_URL;
if (!baseURL) {
  throw new Error(
    'INSTALL_TEST_URL is not set: run the install test with scripts/install-test',
  );
}

export default defineConfig({
  testDir: '.',
  testMatch: '*.test.ts',
  timeout: 90_000,
  expect: { timeout: 30_000 },
  forbidOnly: !!process.env.CI,
  retries: 0,
  workers: 1,
  reporter: [['list']],
  outputDir: '../test-results/install-test-output',
  use: {
    baseURL,
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
