import { MiddlewareFactory } from '@backstage/backend-defaults/rootHttpRouter';
import { createValidatedOpenApiRouterFromGeneratedEndpointMap } from '@backstage/backend-openapi-utils';
import {
  PermissionsRegistryService,
  PermissionsService,
} from '@backstage/backend-plugin-api';
import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import {
  CatalogGroup,
  demoPlatformConfig,
  parsePlatform,
  parseUsd,
  Platform,
} from '@gpu-platform/backstage-plugin-gpu-common';
import express from 'express';
import { Knex } from 'knex';
import { DateTime } from 'luxon';
import request from 'supertest';
import { AuthorizedGovernance } from '../../authorization/AuthorizedGovernance';
import { AuthorizedServices } from '../../authorization/AuthorizedServices';
import { AuthorizedUsage } from '../../authorization/AuthorizedUsage';
import { GpuAccess } from '../../authorization/GpuAccess';
import { DatabaseGpuStore } from '../../database';
import { registerUsageRoutes } from '../../routes/usage';
import { EndpointMap, spec } from '../../schema/openapi';
import { ServiceManager } from '../../services/ServiceManager';
import { ServiceStatusRefresher } from '../../services/ServiceStatusRefresher';
import { seedUsageServices } from '../__testUtils__/seedUsageServices';
import { AllocationReader } from '../AllocationReader';
import { CostSnapshotStore } from '../CostSnapshotStore';
import { UsageService } from '../UsageService';
import { FOCUS_COLUMNS } from './focusCsv';

jest.setTimeout(60_000);

const databases = TestDatabases.create({ ids: ['SQLITE_3', 'POSTGRES_15'] });
const platform: Platform = parsePlatform(demoPlatformConfig);
const NOW = DateTime.fromISO('2026-11-20T09:30:00Z', { zone: 'utc' });
const FIRST = '2026-11-10';
const LAST = '2026-11-19';
const DAYS = 10;

/** engineering > ai > ml-platform; search under engineering through engineering's spec.children. */
const GROUPS: CatalogGroup[] = [
  {
    ref: 'group:default/engineering',
    children: ['group:default/ai', 'group:default/search'],
  },
  { ref: 'group:default/ai', children: [] },
  {
    ref: 'group:default/ml-platform',
    parent: 'group:default/ai',
    children: [],
  },
  { ref: 'group:default/search', children: [] },
];

const at = (iso: string) => `${iso}Z`;

/** Services whose lifetimes start, stop and pause mid-day, on plain, spot, MIG and MPS pools, in every mode. */
const SERVICES = [
  // Held all along on a dedicated pool; did not run for 5 hours on the 12th (reserved then).
  {
    name: 'chat',
    team: 'ml-platform',
    namespace: 'ml-serving',
    environment: 'production',
    tier: 'dedicated' as const,
    pool: 'l4-ondemand',
    gpuEquivalents: 2,
    heldAt: at('2026-11-01T00:00:00'),
    runs: [
      {
        startedAt: at('2026-11-01T00:00:00'),
        stoppedAt: at('2026-11-12T03:17:11'),
      },
      { startedAt: at('2026-11-12T08:17:11') },
    ],
  },
  // A MIG slice created mid-day on the 11th.
  {
    name: 'summariser',
    team: 'ml-platform',
    namespace: 'ml-serving',
    environment: 'production',
    tier: 'mig' as const,
    pool: 'a100-mig',
    migProfile: '1g.10gb',
    gpuEquivalents: 1 / 7,
    heldAt: at('2026-11-11T13:05:27'),
  },
  // An MPS share deleted mid-day on the 15th.
  {
    name: 'triage',
    team: 'search',
    namespace: 'search',
    environment: 'staging',
    tier: 'mps' as const,
    pool: 'l4-mps',
    gpuEquivalents: 1 / 4,
    heldAt: at('2026-11-02T00:00:00'),
    releasedAt: at('2026-11-15T19:44:03'),
  },
  // Spot, GitOps: spend for as long as it is held.
  {
    name: 'batch-embed',
    team: 'search',
    namespace: 'search',
    environment: 'dev',
    tier: 'dedicated' as const,
    pool: 'spot-l4',
    gpuEquivalents: 3,
    heldAt: at('2026-11-13T22:00:01'),
    mode: 'gitops' as const,
  },
  // A second service on spot-l4, beside batch-embed and the batch jobs: created mid-day on the 14th.
  {
    name: 'rerank',
    team: 'search',
    namespace: 'search',
    environment: 'dev',
    tier: 'dedicated' as const,
    pool: 'spot-l4',
    gpuEquivalents: 1,
    heldAt: at('2026-11-14T10:12:13'),
    mode: 'gitops' as const,
  },
  // A dry run: held, never spend.
  {
    name: 'sandbox',
    team: 'search',
    namespace: 'search',
    environment: 'dev',
    tier: 'time-sliced' as const,
    pool: 't4-timeslice',
    gpuEquivalents: 1 / 4,
    heldAt: at('2026-11-09T10:00:00'),
    mode: 'dry-run' as const,
  },
];

/** The node bill: every pool's maxNodes x node-hour price x 24 hours x days, in plain integer arithmetic. */
const nodeBillMicros = platform.pools.reduce(
  (total, pool) =>
    total + parseUsd(pool.pricePerNodeHour) * pool.maxNodes * 24 * DAYS,
  0,
);

/** Micro-dollars of a decimal cost as the CSV writes it, without going through a float. */
const micros = (decimal: string) => {
  const [whole, fraction] = decimal.replace('-', '').split('.');
  const value = Number(whole) * 1_000_000 + Number(fraction);
  return decimal.startsWith('-') ? -value : value;
};

/** A CSV line split at the commas outside quotes. */
function fields(line: string): string[] {
  const result: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted && c === '"' && line[i + 1] === '"') {
      current += '"';
      i++;
    } else if (c === '"') {
      quoted = !quoted;
    } else if (c === ',' && !quoted) {
      result.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  result.push(current);
  return result;
}

function parseCsv(text: string) {
  const [header, ...lines] = text.trimEnd().split('\r\n');
  const columns = fields(header);
  return {
    columns,
    rows: lines.map(line => {
      const values = fields(line);
      return Object.fromEntries(columns.map((c, i) => [c, values[i]]));
    }),
  };
}

/**
 * Batch jobs of search on spot-l4: one held 6.5 hours on the 14th, one submitted on the 19th and still running, and
 * one that finished in October, before the period and the month (the export and the team's cost do not read it).
 */
const BATCH_JOBS = [
  {
    id: '0b6d0f38-7a53-4f0e-9a57-5d1c1c0e0001',
    name: 'ocr-nightly',
    gpus: 2,
    heldAt: at('2026-11-14T01:00:00'),
    releasedAt: at('2026-11-14T07:30:00'),
  },
  {
    id: '0b6d0f38-7a53-4f0e-9a57-5d1c1c0e0002',
    name: 'ocr-backlog',
    gpus: 2,
    heldAt: at('2026-11-19T20:00:00'),
  },
  {
    id: '0b6d0f38-7a53-4f0e-9a57-5d1c1c0e0003',
    name: 'ocr-october',
    gpus: 4,
    heldAt: at('2026-10-28T01:00:00'),
    releasedAt: at('2026-10-28T09:00:00'),
  },
];

/** Records the batch jobs and their reservations as `store.reserveBatchJob` and the release sweep leave them. */
async function seedBatchJobs(knex: Knex) {
  for (const job of BATCH_JOBS) {
    await knex('batch_jobs').insert({
      id: job.id,
      name: job.name,
      namespace: 'search',
      team: 'search',
      environment: 'dev',
      pool: 'spot-l4',
      cluster: null,
      mode: 'apply',
      pods_at_once: job.gpus,
      gpus_per_pod: 1,
      state: job.releasedAt ? 'finished' : 'active',
      submitted_by: 'user:default/carol',
      submitted_at: new Date(job.heldAt),
      finished_at: job.releasedAt ? new Date(job.releasedAt) : null,
      finish_reason: job.releasedAt ? 'the Job completed' : null,
    });
    await knex('reservations').insert({
      id: job.id.replace(/^0b6d/, '1b6d'),
      service_id: null,
      batch_job_id: job.id,
      team: 'search',
      pool: 'spot-l4',
      gpu_units: job.gpus * 5040,
      monthly_cost_micros: job.gpus * 270_100_000,
      state: job.releasedAt ? 'released' : 'held',
      created_at: new Date(job.heldAt),
      held_at: new Date(job.heldAt),
      released_at: job.releasedAt ? new Date(job.releasedAt) : null,
      mig_profile: null,
    });
  }
}

describe.each(databases.eachSupportedId())('cost export on %s', databaseId => {
  let knex: Knex;
  let store: DatabaseGpuStore;
  let usage: UsageService;
  let permissions: jest.Mocked<PermissionsService>;
  let catalogFails: boolean;

  function app() {
    const permissionsRegistry = {
      getPermissionRuleset: () => ({ getRuleByName: () => undefined }),
    } as unknown as PermissionsRegistryService;
    const access = new GpuAccess(permissions, permissionsRegistry);
    const unused = {} as ServiceManager & ServiceStatusRefresher;
    const services = new AuthorizedServices({
      access,
      store,
      services: unused,
      statuses: unused,
    });
    const governance = new AuthorizedGovernance({
      access,
      platform,
      store,
      services: unused,
      authorizedServices: services,
    });
    const router =
      createValidatedOpenApiRouterFromGeneratedEndpointMap<EndpointMap>(spec, {
        validatorOptions: { validateSecurity: false },
      });
    registerUsageRoutes(router, {
      httpAuth: mockServices.httpAuth(),
      usage: new AuthorizedUsage({
        access,
        usage,
        services,
        governance,
        groups: async () => {
          if (catalogFails) throw new Error('catalog answered 502');
          return GROUPS;
        },
      }),
    });
    return express()
      .use(router)
      .use(
        MiddlewareFactory.create({
          config: mockServices.rootConfig(),
          logger: mockServices.rootLogger(),
        }).error(),
      );
  }

  beforeAll(async () => {
    knex = await databases.init(databaseId);
    store = await DatabaseGpuStore.create({
      database: mockServices.database({ knex }),
      platform,
    });
    await seedUsageServices({ store, knex, platform, services: SERVICES });
    await seedBatchJobs(knex);
    usage = new UsageService({
      platform,
      reader: new AllocationReader(knex),
      snapshots: new CostSnapshotStore(knex),
      quotas: store,
      now: () => NOW,
    });
  });

  beforeEach(() => {
    catalogFails = false;
    permissions = mockServices.permissions.mock();
    permissions.authorize.mockResolvedValue([
      { result: AuthorizeResult.ALLOW },
    ]);
  });

  it('answers CSV with the FOCUS header whose rows add up to the node bill to the micro-dollar', async () => {
    const res = await request(app())
      .get('/cost/export')
      .query({ firstDay: FIRST, lastDay: LAST });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="gpu-cost-focus-${FIRST}-to-${LAST}.csv"`,
    );
    const { columns, rows } = parseCsv(res.text);
    expect(columns).toEqual([...FOCUS_COLUMNS]);
    expect(columns).toEqual(
      expect.arrayContaining([
        'ChargePeriodStart',
        'ChargePeriodEnd',
        'BilledCost',
        'EffectiveCost',
        'ResourceId',
        'ResourceName',
        'ServiceName',
        'Tags',
      ]),
    );

    const total = rows.reduce((t, r) => t + micros(r.BilledCost), 0);
    expect(total).toBe(nodeBillMicros);
    expect(rows.every(r => r.BilledCost === r.EffectiveCost)).toBe(true);

    // Each pool on each day: its rows are its maxNodes x price x 24, and it has one unallocated row.
    for (const pool of platform.pools) {
      const daily = parseUsd(pool.pricePerNodeHour) * pool.maxNodes * 24;
      for (let d = 0; d < DAYS; d++) {
        const start = DateTime.fromISO(FIRST, { zone: 'utc' })
          .plus({ days: d })
          .toISO({ suppressMilliseconds: true });
        const ofPool = rows.filter(
          r =>
            r.ChargePeriodStart === start &&
            JSON.parse(r.Tags).pool === pool.name,
        );
        expect(ofPool.reduce((t, r) => t + micros(r.BilledCost), 0)).toBe(
          daily,
        );
        expect(
          ofPool.filter(r => JSON.parse(r.Tags).charge === 'unallocated'),
        ).toHaveLength(1);
      }
    }
  });

  it("charges each service what the books' daily figures say, with its team's groups", async () => {
    const res = await request(app())
      .get('/cost/export')
      .query({ firstDay: FIRST, lastDay: LAST });
    const { rows } = parseCsv(res.text);
    for (let d = 0; d < DAYS; d++) {
      const day = DateTime.fromISO(FIRST, { zone: 'utc' }).plus({ days: d });
      const start = day.toISO({ suppressMilliseconds: true });
      const books = await usage.dailySnapshots(day);
      const ofDay = rows.filter(r => r.ChargePeriodStart === start);
      // Services' rows (the batch jobs' are checked below).
      const allocated = ofDay.filter(
        r =>
          JSON.parse(r.Tags).charge === 'allocated' &&
          r.ResourceType === 'GPU model service',
      );
      expect(
        allocated
          .map(r => [r.ResourceId, micros(r.BilledCost)])
          .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
      ).toEqual(
        books
          .map(b => [b.serviceId, b.allocationMicros])
          .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
      );
    }

    const chat = rows.filter(r => r.ResourceName === 'chat');
    expect(JSON.parse(chat[0].Tags)).toEqual({
      team: 'ml-platform',
      environment: 'production',
      tier: 'dedicated',
      pool: 'l4-ondemand',
      groups:
        'group:default/ml-platform,group:default/ai,group:default/engineering',
      charge: 'allocated',
    });
    expect(chat[0].SubAccountName).toBe('ml-platform');
    // Held but not running for 5 hours on the 12th: 2 GPUs x 5 h x 0.8048 USD.
    const reserved = chat.filter(r => JSON.parse(r.Tags).charge === 'reserved');
    expect(reserved.map(r => [r.ChargePeriodStart, r.BilledCost])).toEqual([
      ['2026-11-12T00:00:00Z', '8.048000'],
    ]);
    // The dry run is reserved only, never allocated.
    const sandbox = rows.filter(r => r.ResourceName === 'sandbox');
    expect(sandbox).toHaveLength(DAYS);
    expect(sandbox.every(r => JSON.parse(r.Tags).charge === 'reserved')).toBe(
      true,
    );
  });

  it('charges a batch job at the pool price for the hours it held its GPUs, beside two services of its pool, and the pool still adds up', async () => {
    const res = await request(app())
      .get('/cost/export')
      .query({ firstDay: FIRST, lastDay: LAST });
    const { rows } = parseCsv(res.text);
    const nightly = rows.filter(r => r.ResourceId === BATCH_JOBS[0].id);
    // 2 GPUs x 6.5 h x 0.37 USD a spot L4 node-hour (one GPU a node).
    expect(nightly).toEqual([
      expect.objectContaining({
        ChargePeriodStart: '2026-11-14T00:00:00Z',
        BilledCost: '4.810000',
        EffectiveCost: '4.810000',
        ResourceName: 'ocr-nightly',
        ResourceType: 'GPU batch job',
        ServiceName: 'GPU batch jobs',
        SubAccountName: 'search',
      }),
    ]);
    expect(JSON.parse(nightly[0].Tags)).toEqual({
      team: 'search',
      environment: 'dev',
      pool: 'spot-l4',
      kind: 'batch-job',
      groups: 'group:default/search,group:default/engineering',
      charge: 'allocated',
    });
    // Still running: charged to the end of the period (4 hours of the 19th).
    expect(
      rows
        .filter(r => r.ResourceId === BATCH_JOBS[1].id)
        .map(r => [r.ChargePeriodStart, r.BilledCost]),
    ).toEqual([['2026-11-19T00:00:00Z', '2.960000']]);

    // On the 14th, the pool's two services, the batch job and the unallocated rest are 6 nodes x 0.37 x 24 exactly.
    const ofDay = rows.filter(
      r =>
        r.ChargePeriodStart === '2026-11-14T00:00:00Z' &&
        JSON.parse(r.Tags).pool === 'spot-l4',
    );
    expect(ofDay.map(r => r.ResourceName).sort()).toEqual([
      'batch-embed',
      'ocr-nightly',
      'rerank',
      'spot-l4',
    ]);
    const service = (name: string) =>
      micros(ofDay.find(r => r.ResourceName === name)!.BilledCost);
    const unallocated = micros(
      ofDay.find(r => JSON.parse(r.Tags).charge === 'unallocated')!.BilledCost,
    );
    // batch-embed 3 GPUs all day; rerank 1 GPU from 10:12:13 (13:47:47 = 49,667 s).
    expect(service('batch-embed')).toBe(3 * 24 * 370_000);
    expect(service('rerank')).toBe(Math.round((49_667 * 370_000) / 3600));
    expect(service('ocr-nightly')).toBe(4_810_000);
    expect(
      service('batch-embed') +
        service('rerank') +
        service('ocr-nightly') +
        unallocated,
    ).toBe(6 * 370_000 * 24);
  });

  it('reads only the batch jobs whose reservation overlaps the period, and the pools still add up', async () => {
    const reader = new AllocationReader(knex);
    const ids = async (from: string, to: string) =>
      (
        await reader.batchJobs({
          from: new Date(at(from)),
          to: new Date(at(to)),
        })
      ).map(j => j.batchJob.id);
    // The export's period: the job finished in October is not read.
    expect(await ids('2026-11-10T00:00:00', '2026-11-20T00:00:00')).toEqual([
      BATCH_JOBS[1].id,
      BATCH_JOBS[0].id,
    ]);
    // A period it held GPUs in reads it (and neither of November's).
    expect(await ids('2026-10-28T08:59:59', '2026-10-29T00:00:00')).toEqual([
      BATCH_JOBS[2].id,
    ]);
    // Finished at the period's start, or submitted at its end: held nothing in it.
    expect(await ids('2026-10-28T09:00:00', '2026-11-14T01:00:00')).toEqual([]);
    // Still active: read for any period from its submission on.
    expect(await ids('2026-12-01T00:00:00', '2026-12-02T00:00:00')).toEqual([
      BATCH_JOBS[1].id,
    ]);
    // The store's read is the same one; without a period, every job.
    expect(
      (await store.listBatchJobAllocations({ team: 'search' })).map(
        j => j.batchJob.name,
      ),
    ).toEqual(['ocr-backlog', 'ocr-nightly', 'ocr-october']);

    const res = await request(app())
      .get('/cost/export')
      .query({ firstDay: FIRST, lastDay: LAST });
    const { rows } = parseCsv(res.text);
    expect(rows.some(r => r.ResourceId === BATCH_JOBS[2].id)).toBe(false);
    expect(rows.reduce((t, r) => t + micros(r.BilledCost), 0)).toBe(
      nodeBillMicros,
    );
    // October's export charges it (4 GPUs x 8 h x 0.37 USD), and spot-l4 still adds up on the 28th.
    const october = parseCsv(
      (
        await request(app())
          .get('/cost/export')
          .query({ firstDay: '2026-10-28', lastDay: '2026-10-28' })
      ).text,
    ).rows.filter(r => JSON.parse(r.Tags).pool === 'spot-l4');
    expect(
      october
        .filter(r => r.ResourceType === 'GPU batch job')
        .map(r => [r.ResourceName, r.BilledCost]),
    ).toEqual([['ocr-october', '11.840000']]);
    expect(october.reduce((t, r) => t + micros(r.BilledCost), 0)).toBe(
      6 * 370_000 * 24,
    );
  });

  it("counts the team's batch jobs in its cost and budget burn, as the export charges them", async () => {
    const cost = await usage.teamCost('search', 'P10D');
    expect(cost.batchJobs).toEqual([
      // By name.
      {
        batchId: BATCH_JOBS[1].id,
        name: 'ocr-backlog',
        team: 'search',
        namespace: 'search',
        environment: 'dev',
        pool: 'spot-l4',
        state: 'active',
        outcome: 'running',
        gpus: 2,
        gpuEquivalents: 2,
        gpuHours: 27,
        // 13.5 hours to now (the 20th, 09:30), then 254.5 more to the end of November.
        allocationMicros: 9_990_000,
        monthToDateMicros: 9_990_000,
        projectedMonthMicros: 9_990_000 + 188_330_000,
        heldAt: '2026-11-19T20:00:00.000Z',
      },
      {
        batchId: BATCH_JOBS[0].id,
        name: 'ocr-nightly',
        team: 'search',
        namespace: 'search',
        environment: 'dev',
        pool: 'spot-l4',
        state: 'finished',
        outcome: 'completed',
        finishReason: 'the Job completed',
        gpus: 2,
        gpuEquivalents: 0,
        gpuHours: 13,
        // 2 GPUs x 6.5 h x 0.37 USD, as its export row.
        allocationMicros: 4_810_000,
        monthToDateMicros: 4_810_000,
        projectedMonthMicros: 4_810_000,
        heldAt: '2026-11-14T01:00:00.000Z',
        releasedAt: '2026-11-14T07:30:00.000Z',
      },
    ]);
    const services = cost.services;
    const sum = (key: 'allocationMicros' | 'monthToDateMicros') =>
      services.reduce((t, s) => t + s[key], 0) +
      cost.batchJobs!.reduce((t, j) => t + j[key], 0);
    expect(cost.allocationMicros).toBe(sum('allocationMicros'));
    expect(cost.monthToDateMicros).toBe(sum('monthToDateMicros'));
    expect(cost.budgetBurn).toBe(
      cost.monthToDateMicros / cost.monthlyBudgetMicros,
    );
  });

  it('refuses days that are malformed, reversed, not over or too many with 400', async () => {
    for (const [query, message] of [
      [{ firstDay: '2026-11-31' }, "Invalid firstDay '2026-11-31'"],
      [{ lastDay: '20261119' }, "Invalid lastDay '20261119'"],
      [{ firstDay: '2026-11-19', lastDay: '2026-11-10' }, 'is after lastDay'],
      [{ lastDay: '2026-11-20' }, 'whole UTC days that are over'],
      [{ firstDay: '2026-01-01', lastDay: '2026-11-19' }, 'at most 93 days'],
    ] as const) {
      const res = await request(app()).get('/cost/export').query(query);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toContain(message);
    }
    expect(permissions.authorize).toHaveBeenCalled();
  });

  it('needs gpu.quota.read', async () => {
    permissions.authorize.mockResolvedValue([{ result: AuthorizeResult.DENY }]);
    const res = await request(app())
      .get('/cost/export')
      .query({ firstDay: FIRST, lastDay: LAST });
    expect(res.status).toBe(403);
    expect(permissions.authorize.mock.calls[0][0]).toEqual([
      expect.objectContaining({
        permission: expect.objectContaining({ name: 'gpu.quota.read' }),
      }),
    ]);
  });

  it('says why when the catalog cannot be read', async () => {
    catalogFails = true;
    const res = await request(app())
      .get('/cost/export')
      .query({ firstDay: FIRST, lastDay: LAST });
    expect(res.status).toBe(503);
    expect(res.body.error.message).toContain('catalog answered 502');
  });
});
