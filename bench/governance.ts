/**
 * The governance page's first paint in Chromium with many services and many requests waiting for approval
 * (`yarn bench:governance`): what the page downloads before it shows its tables, and that no table downloads more
 * than one page of its rows.
 *
 * The real backend (bench/httpBackend.ts: every plugin, app-config.yaml and app-config.e2e.yaml, so users sign in as
 * behind oauth2-proxy) serves the production build of packages/app (packages/app/dist; `yarn workspace app build`
 * makes it, `yarn e2e` too) and keeps the gpu plugin's SQLite in a file. Before it starts, the benchmark stores
 * `--services` services (default 10,000) of `--teams` teams (100) in that file through the plugin's store
 * (`DatabaseGpuStore`, the real schema and admission), `--pending` (1,000) of them waiting for approval (a spot pool
 * in production), the rest held, as one ledger a busy platform would have; storing them through the API takes 16
 * minutes, through the store about a minute. Then Chromium (Debian's, `CHROMIUM_PATH`) opens `/gpu` signed in as the
 * org's guest (platform team: sees every team's requests) and waits until the page has settled: the heading, the
 * pending approvals' range ("1-10 of 1,000"), then no API request for 2 s. Reported: the API requests the page made
 * (path, query, status, response bytes, rows), their count and bytes, the rows of each list the page asked for
 * against the page size it asked, the time to the heading and to the approvals' range, and the app's own files apart
 * (they do not grow with the data).
 *
 * Options: `--services`, `--pending`, `--teams`, `--smoke` (60 services, 25 waiting, 3 teams), `--out <dir>`.
 * Run under `flock /tmp/e2e.lock` where others run the e2e suite: it reads packages/app/dist, which `yarn e2e`
 * rebuilds.
 */
import { chromium } from '@playwright/test';
import knexFactory from 'knex';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { mockServices } from '@backstage/backend-test-utils';
import {
  demoPlatformConfig,
  parsePlatform,
  pooledCost,
  poolPrices,
} from '../plugins/gpu-common/src';
import { DatabaseGpuStore } from '../plugins/gpu-backend/src/database';
import { identityHeaders } from '../packages/app/e2e-tests/support/users';
import { parseCli } from './cli';
import { startBackend } from './httpBackend';

/** Rows of each leaderboard's first page the overview answers unless asked (`GET /overview`'s `top`). */
const OVERVIEW_TOP = 10;

const cli = parseCli();
const SERVICES = cli.number('services', { full: 10_000, smoke: 60 });
const PENDING = cli.number('pending', { full: 1_000, smoke: 25 });
const TEAMS = Math.max(1, cli.number('teams', { full: 100, smoke: 3 }));
cli.checkOptions(
  "yarn bench:governance [options]: the governance page's first paint in Chromium: API requests, bytes, rows per list",
);
/** Most requests a team may have waiting (gpu.approvals.maxPendingPerTeam), so that PENDING fit over the teams. */
const MAX_PENDING_PER_TEAM = Math.max(20, Math.ceil(PENDING / TEAMS));
const APP_DIST = resolve(__dirname, '../packages/app/dist/index.html');
/** Quiet time after which the page counts as settled. */
const SETTLE_MS = 2_000;

/** The demo pools with room for every stored service: admission checks a pool's physical capacity. */
const POOLS = demoPlatformConfig.pools.map(pool => ({
  ...pool,
  maxNodes: 100_000,
}));

/** `ml-platform` (the guest's team) and `bench-team-<n>`, each with room for its share. */
function benchTeams(count: number) {
  const quota = Object.fromEntries(POOLS.map(p => [p.name, 100_000]));
  return [
    'ml-platform',
    ...Array.from({ length: count - 1 }, (_, i) => `bench-team-${i}`),
  ].map(name => ({
    name,
    namespaces: [name],
    gpuQuota: quota,
    monthlyBudget: '1000000000',
  }));
}

/** Stores the services through the plugin's store in its SQLite file, `pending` of them waiting for approval. */
async function storeServices(
  file: string,
  platform: ReturnType<typeof parsePlatform>,
  teams: Array<{ name: string }>,
) {
  const knex = knexFactory({
    client: 'better-sqlite3',
    connection: { filename: file },
    useNullAsDefault: true,
  });
  try {
    const store = await DatabaseGpuStore.create({
      database: mockServices.database({ knex }),
      platform,
    });
    for (const team of teams) {
      await store.putQuota({
        team: team.name,
        quota: {
          pools: Object.fromEntries(POOLS.map(p => [p.name, 100_000])),
          monthlyBudgetMicros: 1_000_000_000 * 1_000_000,
        },
        actor: 'user:default/admin',
      });
    }
    const prices = poolPrices(platform);
    // Services go to the teams in turn; in every `every`-th turn each team's service waits, so the waiting ones
    // spread evenly over the teams (a team may have only 20 waiting).
    const every = PENDING > 0 ? Math.max(1, Math.floor(SERVICES / PENDING)) : 0;
    let waiting = 0;
    for (let i = 0; i < SERVICES; i++) {
      const team = teams[i % teams.length].name;
      const waits =
        every > 0 &&
        Math.floor(i / teams.length) % every === 0 &&
        waiting < PENDING;
      const pool = waits ? 'spot-l4' : 'l4-ondemand';
      const name = `svc-${String(i).padStart(5, '0')}`;
      const environment = waits ? 'production' : 'dev';
      const result = await store.createServiceWithReservation({
        name,
        team,
        namespace: team,
        environment,
        tier: 'dedicated',
        pool,
        request: {
          name,
          team,
          namespace: team,
          model: 'llama-3.1-8b',
          runtime: 'vllm',
          maxModelLen: 8192,
          concurrency: 16,
          replicas: 1,
          environment,
          tier: 'dedicated',
          pool,
        },
        placement: { tier: 'dedicated', pool, gpusPerReplica: 1 },
        mode: 'dry-run',
        reservation: {
          gpuEquivalents: 1,
          monthlyCostMicros: pooledCost(
            prices.get(pool)!,
            1,
            platform.hoursPerMonth,
          ),
        },
        policy: {
          whenOverQuota: 'reject',
          approvalReasons: waits
            ? [
                {
                  code: 'spot-in-production',
                  message: `${pool} is a spot pool; production services need approval to run on it`,
                },
              ]
            : [],
        },
        actor: `user:default/bench-${team}`,
      });
      if (waits !== !!result.approval) {
        throw new Error(
          `${name}: expected ${waits ? 'an approval' : 'no approval'}, got ${
            result.service.status
          }`,
        );
      }
      if (waits) waiting++;
    }
    return waiting;
  } finally {
    await knex.destroy();
  }
}

interface ApiCall {
  method: string;
  path: string;
  query: string;
  status: number;
  bytes: number;
  /** Items of a list answer (`items`), its asked `limit`. */
  rows?: number;
  limit?: number;
  ms: number;
}

async function firstPaint(baseUrl: string) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic'],
  });
  try {
    const context = await browser.newContext({
      baseURL: baseUrl,
      extraHTTPHeaders: identityHeaders('guest'),
      viewport: { width: 1440, height: 900 },
    });
    const page = await context.newPage();
    const api: ApiCall[] = [];
    const assets = { requests: 0, bytes: 0 };
    let lastApiAt = Date.now();
    const pendingApi = new Set<unknown>();
    const start = Date.now();
    page.on('request', request => {
      if (new URL(request.url()).pathname.startsWith('/api/')) {
        pendingApi.add(request);
        lastApiAt = Date.now();
      }
    });
    page.on('requestfinished', async request => {
      const url = new URL(request.url());
      const response = await request.response();
      const body = await response?.body().catch(() => undefined);
      const bytes = body?.length ?? 0;
      if (!url.pathname.startsWith('/api/')) {
        assets.requests++;
        assets.bytes += bytes;
        return;
      }
      let rows: number | undefined;
      try {
        const parsed = body ? JSON.parse(body.toString('utf8')) : undefined;
        if (Array.isArray(parsed?.items)) rows = parsed.items.length;
        else if (Array.isArray(parsed)) rows = parsed.length;
        // The overview: the first page of each leaderboard (its `top`), the most rows of either.
        else if (parsed?.leaderboards) {
          rows = Math.max(
            ...Object.values(
              parsed.leaderboards as Record<string, { items: unknown[] }>,
            ).map(board => board.items.length),
          );
        }
      } catch {
        // not JSON
      }
      const limit =
        url.searchParams.get('limit') ??
        (url.pathname === '/api/gpu/overview'
          ? url.searchParams.get('top') ?? String(OVERVIEW_TOP)
          : null);
      api.push({
        method: request.method(),
        path: url.pathname,
        query: url.search,
        status: response?.status() ?? 0,
        bytes,
        ...(rows === undefined ? {} : { rows }),
        ...(limit === null ? {} : { limit: Number(limit) }),
        ms: Math.round(request.timing().responseEnd),
      });
      pendingApi.delete(request);
      lastApiAt = Date.now();
    });
    page.on('requestfailed', request => {
      pendingApi.delete(request);
    });

    await page.goto('/gpu');
    await page
      .getByRole('heading', { name: 'GPU governance' })
      .waitFor({ timeout: 120_000 });
    const headingMs = Date.now() - start;
    const range = `1-10 of ${PENDING.toLocaleString('en-US')}`;
    const rangeAlt = `1-10 of ${PENDING}`;
    await page
      .locator('p:visible, span:visible', {
        hasText: new RegExp(`^(${range}|${rangeAlt})$`),
      })
      .first()
      .waitFor({ timeout: 120_000 });
    const approvalsMs = Date.now() - start;
    // Settled: nothing in flight and no API request for SETTLE_MS.
    const deadline = Date.now() + 120_000;
    while (
      (pendingApi.size > 0 || Date.now() - lastApiAt < SETTLE_MS) &&
      Date.now() < deadline
    ) {
      await page.waitForTimeout(250);
    }
    const settledMs = Date.now() - start - SETTLE_MS;
    return { api, assets, headingMs, approvalsMs, settledMs };
  } finally {
    await browser.close();
  }
}

async function main() {
  if (!existsSync(APP_DIST)) {
    throw new Error(
      `${APP_DIST} is missing: build the app first (yarn workspace app build)`,
    );
  }
  const teams = benchTeams(TEAMS);
  const platform = parsePlatform({
    ...demoPlatformConfig,
    teams,
    pools: POOLS,
  });
  const dir = mkdtempSync(join(tmpdir(), 'gpu-bench-governance-'));
  try {
    const storeStarted = Date.now();
    const waiting = await storeServices(
      join(dir, 'gpu.sqlite'),
      platform,
      teams,
    );
    const storeSeconds = (Date.now() - storeStarted) / 1000;
    process.stdout.write(
      `stored ${SERVICES} services of ${
        teams.length
      } teams (${waiting} waiting for approval) in ${storeSeconds.toFixed(
        1,
      )} s\n`,
    );
    const backend = await startBackend({
      configFiles: ['app-config.e2e.yaml'],
      config: {
        gpu: {
          teams,
          pools: POOLS,
          approvals: { maxPendingPerTeam: MAX_PENDING_PER_TEAM },
        },
      },
      database: {
        client: 'better-sqlite3',
        connection: { directory: dir },
      },
    });
    let paint: Awaited<ReturnType<typeof firstPaint>>;
    try {
      // Until the catalog has read examples/org.yaml, the guest cannot sign in through the proxy provider.
      const deadline = Date.now() + 180_000;
      for (;;) {
        const res = await fetch(
          `${backend.baseUrl}/api/auth/oauth2Proxy/refresh`,
          {
            headers: {
              'x-requested-with': 'XMLHttpRequest',
              ...identityHeaders('guest'),
            },
          },
        );
        if (res.ok) break;
        if (Date.now() > deadline) {
          throw new Error(
            `the guest cannot sign in: ${res.status} ${await res.text()}`,
          );
        }
        await new Promise(r => setTimeout(r, 1000));
      }
      // One visit first (JIT, the catalog's and the plugins' first reads), then the measured one.
      await firstPaint(backend.baseUrl);
      paint = await firstPaint(backend.baseUrl);
    } finally {
      await backend.stopAndWait();
    }
    const lists = paint.api.filter(c => c.limit !== undefined);
    const results = {
      date: new Date().toISOString(),
      smoke: cli.smoke,
      machine: { cpus: cpus().length, loadAverage: loadavg() },
      stored: {
        services: SERVICES,
        pendingApprovals: waiting,
        teams: teams.length,
        storeSeconds: Number(storeSeconds.toFixed(1)),
      },
      page: '/gpu',
      user: 'guest (platform team)',
      timings: {
        headingMs: paint.headingMs,
        approvalsRangeMs: paint.approvalsMs,
        settledMs: paint.settledMs,
      },
      api: {
        requests: paint.api.length,
        bytes: paint.api.reduce((sum, c) => sum + c.bytes, 0),
        largest: [...paint.api].sort((a, b) => b.bytes - a.bytes)[0],
        calls: paint.api,
      },
      appFiles: paint.assets,
      lists: {
        count: lists.length,
        /** Every list the page asked for answered at most the page it asked for. */
        onePageEach: lists.every(c => (c.rows ?? 0) <= (c.limit ?? 0)),
        mostRows: Math.max(0, ...paint.api.map(c => c.rows ?? 0)),
      },
    };
    const file = cli.writeResults('governance', results);
    process.stdout.write(
      `governance page with ${SERVICES} services, ${waiting} waiting: ${
        results.api.requests
      } API requests, ${(results.api.bytes / 1000).toFixed(1)} KB (largest ${
        results.api.largest?.path
      }${results.api.largest?.query ?? ''}: ${(
        (results.api.largest?.bytes ?? 0) / 1000
      ).toFixed(1)} KB); approvals shown after ${paint.approvalsMs} ms\n`,
    );
    for (const call of paint.api) {
      process.stdout.write(
        `  ${call.status} ${call.method} ${call.path}${call.query} ${
          call.bytes
        } B${call.rows === undefined ? '' : `, ${call.rows} rows`}\n`,
      );
    }
    process.stdout.write(`written to ${file}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch(error => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
