import { MiddlewareFactory } from '@backstage/backend-defaults/rootHttpRouter';
import { createValidatedOpenApiRouterFromGeneratedEndpointMap } from '@backstage/backend-openapi-utils';
import {
  PermissionsRegistryService,
  PermissionsService,
} from '@backstage/backend-plugin-api';
import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import {
  BatchJobCostSummary,
  demoPlatformConfig,
  groupHierarchy,
  OverviewSummary,
  parsePlatform,
  Platform,
  TeamCost,
} from '@gpu-platform/backstage-plugin-gpu-common';
import express from 'express';
import { Knex } from 'knex';
import { DateTime } from 'luxon';
import request from 'supertest';
import { AuthorizedGovernance } from '../authorization/AuthorizedGovernance';
import { AuthorizedServices } from '../authorization/AuthorizedServices';
import { AuthorizedUsage } from '../authorization/AuthorizedUsage';
import { GpuAccess } from '../authorization/GpuAccess';
import { DatabaseGpuStore } from '../database';
import { registerUsageRoutes } from '../routes/usage';
import { EndpointMap, spec } from '../schema/openapi';
import { ServiceManager } from '../services/ServiceManager';
import { ServiceStatusRefresher } from '../services/ServiceStatusRefresher';
import { seedUsageServices } from './__testUtils__/seedUsageServices';
import { AllocationReader } from './AllocationReader';
import { CostSnapshotStore } from './CostSnapshotStore';
import { storeDailySnapshots } from './snapshotTask';
import { UsageService } from './UsageService';

jest.setTimeout(60_000);

const databases = TestDatabases.create({ ids: ['SQLITE_3', 'POSTGRES_15'] });
const platform: Platform = parsePlatform(demoPlatformConfig);
const NOW = DateTime.fromISO('2026-11-20T09:30:00Z', { zone: 'utc' });
const WINDOW = 'P10D';
/** spot-l4: one L4 per node at 0.37 USD a node-hour. */
const SPOT_GPU_HOUR = 370_000;

const at = (iso: string) => `${iso}Z`;

const SERVICES = [
  {
    name: 'rerank',
    team: 'search',
    namespace: 'search',
    environment: 'dev',
    tier: 'dedicated' as const,
    pool: 'spot-l4',
    gpuEquivalents: 1,
    heldAt: at('2026-11-02T00:00:00'),
    mode: 'gitops' as const,
  },
  {
    name: 'chat',
    team: 'ml-platform',
    namespace: 'ml-serving',
    environment: 'production',
    tier: 'dedicated' as const,
    pool: 'l4-ondemand',
    gpuEquivalents: 1,
    heldAt: at('2026-11-01T00:00:00'),
    mode: 'gitops' as const,
  },
];

/** Batch jobs in each state a person sees: completed, failed (across midnight), gone, running; and another team's. */
const BATCH_JOBS = [
  {
    id: '2c6d0f38-7a53-4f0e-9a57-5d1c1c0e0001',
    name: 'ocr-nightly',
    team: 'search',
    pool: 'spot-l4',
    gpus: 2,
    heldAt: at('2026-11-14T01:00:00'),
    releasedAt: at('2026-11-14T07:30:00'),
    reason: 'the Job completed',
  },
  {
    id: '2c6d0f38-7a53-4f0e-9a57-5d1c1c0e0002',
    name: 'ocr-retry',
    team: 'search',
    pool: 'spot-l4',
    gpus: 1,
    heldAt: at('2026-11-18T22:00:00'),
    releasedAt: at('2026-11-19T02:00:00'),
    reason: 'the Job failed',
  },
  {
    id: '2c6d0f38-7a53-4f0e-9a57-5d1c1c0e0003',
    name: 'ocr-lost',
    team: 'search',
    pool: 'spot-l4',
    gpus: 1,
    heldAt: at('2026-11-16T10:00:00'),
    releasedAt: at('2026-11-16T11:00:00'),
    reason: 'the Job is gone from its cluster',
  },
  {
    id: '2c6d0f38-7a53-4f0e-9a57-5d1c1c0e0004',
    name: 'ocr-backlog',
    team: 'search',
    pool: 'spot-l4',
    gpus: 2,
    heldAt: at('2026-11-19T20:00:00'),
  },
  {
    id: '2c6d0f38-7a53-4f0e-9a57-5d1c1c0e0005',
    name: 'eval-sweep',
    team: 'ml-platform',
    pool: 'spot-l4',
    gpus: 1,
    heldAt: at('2026-11-17T00:00:00'),
    releasedAt: at('2026-11-17T06:00:00'),
    reason: 'the Job completed',
  },
];

/** Records the batch jobs and their reservations as `store.reserveBatchJob` and the release sweep leave them. */
async function seedBatchJobs(knex: Knex) {
  for (const job of BATCH_JOBS) {
    await knex('batch_jobs').insert({
      id: job.id,
      name: job.name,
      namespace: job.team,
      team: job.team,
      environment: 'dev',
      pool: job.pool,
      cluster: null,
      mode: 'apply',
      pods_at_once: job.gpus,
      gpus_per_pod: 1,
      state: job.releasedAt ? 'finished' : 'active',
      submitted_by: 'user:default/carol',
      submitted_at: new Date(job.heldAt),
      finished_at: job.releasedAt ? new Date(job.releasedAt) : null,
      finish_reason: job.reason ?? null,
    });
    await knex('reservations').insert({
      id: job.id.replace(/^2c6d/, '3c6d'),
      service_id: null,
      batch_job_id: job.id,
      team: job.team,
      pool: job.pool,
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

const sumOf = (
  jobs: readonly BatchJobCostSummary[],
  key:
    | 'gpuHours'
    | 'allocationMicros'
    | 'monthToDateMicros'
    | 'projectedMonthMicros',
) => jobs.reduce((t, j) => t + j[key], 0);

describe.each(databases.eachSupportedId())(
  'batch jobs in the overview and the daily snapshots on %s',
  databaseId => {
    let knex: Knex;
    let store: DatabaseGpuStore;
    let usage: UsageService;
    let snapshots: CostSnapshotStore;
    let permissions: jest.Mocked<PermissionsService>;

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
        createValidatedOpenApiRouterFromGeneratedEndpointMap<EndpointMap>(
          spec,
          { validatorOptions: { validateSecurity: false } },
        );
      registerUsageRoutes(router, {
        httpAuth: mockServices.httpAuth(),
        usage: new AuthorizedUsage({
          access,
          usage,
          services,
          governance,
          groups: async () => [],
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
      snapshots = new CostSnapshotStore(knex);
      usage = new UsageService({
        platform,
        reader: new AllocationReader(knex),
        snapshots,
        quotas: store,
        now: () => NOW,
      });
    });

    beforeEach(() => {
      permissions = mockServices.permissions.mock();
      permissions.authorize.mockResolvedValue([
        { result: AuthorizeResult.ALLOW },
      ]);
    });

    it('lists a team’s batch jobs in its cost with their GPUs, GPU-hours and what became of them', async () => {
      const cost = await usage.teamCost('search', WINDOW);
      const byName = new Map(cost.batchJobs!.map(j => [j.name, j]));
      expect([...byName.keys()].sort()).toEqual([
        'ocr-backlog',
        'ocr-lost',
        'ocr-nightly',
        'ocr-retry',
      ]);
      expect(byName.get('ocr-nightly')).toMatchObject({
        pool: 'spot-l4',
        gpus: 2,
        state: 'finished',
        outcome: 'completed',
        finishReason: 'the Job completed',
        gpuHours: 13,
        allocationMicros: 13 * SPOT_GPU_HOUR,
      });
      expect(byName.get('ocr-retry')).toMatchObject({
        gpus: 1,
        outcome: 'failed',
        gpuHours: 4,
        allocationMicros: 4 * SPOT_GPU_HOUR,
      });
      expect(byName.get('ocr-lost')).toMatchObject({
        outcome: 'released',
        finishReason: 'the Job is gone from its cluster',
        gpuHours: 1,
      });
      // 20:00 on the 19th to 09:30 on the 20th: 13.5 hours of 2 GPUs.
      expect(byName.get('ocr-backlog')).toMatchObject({
        gpus: 2,
        gpuEquivalents: 2,
        state: 'active',
        outcome: 'running',
        gpuHours: 27,
        allocationMicros: 27 * SPOT_GPU_HOUR,
      });
      expect(byName.get('ocr-backlog')!.finishReason).toBeUndefined();
    });

    it('shows batch jobs in the overview per team and per pool, as team cost counts them', async () => {
      const overview = await usage.overview(WINDOW);
      const costs: Record<string, TeamCost> = {
        search: await usage.teamCost('search', WINDOW),
        'ml-platform': await usage.teamCost('ml-platform', WINDOW),
      };
      for (const [team, cost] of Object.entries(costs)) {
        const row = overview.teams.find(t => t.team === team)!;
        expect(row.batchJobs).toEqual({
          count: cost.batchJobs!.length,
          gpuHours: sumOf(cost.batchJobs!, 'gpuHours'),
          allocationMicros: sumOf(cost.batchJobs!, 'allocationMicros'),
          monthToDateMicros: sumOf(cost.batchJobs!, 'monthToDateMicros'),
          projectedMonthMicros: sumOf(cost.batchJobs!, 'projectedMonthMicros'),
        });
        // The overview's team figures and budget burn are the team cost's, batch jobs included.
        expect(row.allocationMicros).toBe(cost.allocationMicros);
        expect(row.monthToDateMicros).toBe(cost.monthToDateMicros);
        expect(row.projectedMonthMicros).toBe(cost.projectedMonthMicros);
        expect(row.budgetBurn).toBe(cost.budgetBurn);
        expect(row.projectedBudgetBurn).toBe(cost.projectedBudgetBurn);
      }
      const allJobs = [
        ...costs.search.batchJobs!,
        ...costs['ml-platform'].batchJobs!,
      ];
      expect(overview.batchJobs).toEqual({
        count: 5,
        gpuHours: 13 + 4 + 1 + 27 + 6,
        allocationMicros: (13 + 4 + 1 + 27 + 6) * SPOT_GPU_HOUR,
        monthToDateMicros: sumOf(allJobs, 'monthToDateMicros'),
        projectedMonthMicros: sumOf(allJobs, 'projectedMonthMicros'),
      });
      expect(overview.monthToDateMicros).toBe(
        costs.search.monthToDateMicros + costs['ml-platform'].monthToDateMicros,
      );
      expect(overview.allocationMicros).toBe(
        costs.search.allocationMicros + costs['ml-platform'].allocationMicros,
      );

      // Per pool: every batch job was on spot-l4, whose allocated capacity counts what the running one holds now.
      const spot = overview.pools.find(p => p.pool === 'spot-l4')!;
      expect(spot.batchJobs).toEqual(overview.batchJobs);
      expect(spot.allocatedGpuUnits).toBe((1 + 2) * 5040);
      expect(
        overview.pools.find(p => p.pool === 'l4-ondemand')!.batchJobs,
      ).toBeUndefined();

      // GET /overview answers them (the OpenAPI schema lets them through).
      const res = await request(app()).get('/overview').query({
        window: WINDOW,
      });
      expect(res.status).toBe(200);
      const body = res.body as OverviewSummary;
      expect(body.batchJobs).toEqual(overview.batchJobs);
      expect(body.teams.find(t => t.team === 'search')!.batchJobs).toEqual(
        overview.teams.find(t => t.team === 'search')!.batchJobs,
      );
      expect(body.pools.find(p => p.pool === 'spot-l4')!.batchJobs).toEqual(
        spot.batchJobs,
      );
    });

    it('stores each batch job’s days in the daily snapshots, adding up to its team cost and equal to its export rows', async () => {
      const written = await storeDailySnapshots({
        usage,
        snapshots,
        now: NOW,
        lookbackDays: 19,
      });
      const stored = await snapshots.listBatchJobs({
        fromDay: '2026-11-01',
        toDay: '2026-11-19',
      });
      expect(stored.map(s => [s.day, s.batchId.slice(-1), s.gpuHours])).toEqual(
        [
          ['2026-11-14', '1', 13],
          ['2026-11-16', '3', 1],
          ['2026-11-17', '5', 6],
          ['2026-11-18', '2', 2],
          ['2026-11-19', '2', 2],
          ['2026-11-19', '4', 8],
        ],
      );
      expect(
        (
          await snapshots.listBatchJobs({
            team: 'ml-platform',
            fromDay: '2026-11-01',
            toDay: '2026-11-19',
          })
        ).map(s => s.batchId),
      ).toEqual([BATCH_JOBS[4].id]);

      // A finished job's days add up to its month to date in team cost; the running one's to all of it but today's
      // (2 GPUs from midnight to 09:30).
      const search = await usage.teamCost('search', WINDOW);
      const snapshotTotal = (batchId: string) =>
        stored
          .filter(s => s.batchId === batchId)
          .reduce((t, s) => t + s.allocationMicros, 0);
      expect(
        search.batchJobs!.map(j => [
          j.name,
          j.monthToDateMicros - snapshotTotal(j.batchId),
        ]),
      ).toEqual(
        search.batchJobs!.map(j => [
          j.name,
          j.outcome === 'running' ? 2 * 9.5 * SPOT_GPU_HOUR : 0,
        ]),
      );
      expect(snapshotTotal(BATCH_JOBS[3].id)).toBe(8 * SPOT_GPU_HOUR);

      // Each stored day is the batch job's row of that day in the FOCUS export.
      const exported = await usage.costExport(
        '2026-11-01',
        '2026-11-19',
        async () => groupHierarchy([]),
      );
      const rows = exported.rows.filter(
        r => r.resourceType === 'GPU batch job',
      );
      expect(
        rows.map(r => ({
          batchId: r.resourceId,
          day: r.chargePeriodStart.slice(0, 10),
          allocationMicros: r.costMicros,
        })),
      ).toEqual(
        expect.arrayContaining(
          stored.map(s => ({
            batchId: s.batchId,
            day: s.day,
            allocationMicros: s.allocationMicros,
          })),
        ),
      );
      expect(rows).toHaveLength(stored.length);

      // Stored days are kept: a second run writes no batch job's day again.
      const before = await knex('batch_job_cost_snapshots').count({ n: '*' });
      const again = await storeDailySnapshots({
        usage,
        snapshots,
        now: NOW,
        lookbackDays: 19,
      });
      expect(await knex('batch_job_cost_snapshots').count({ n: '*' })).toEqual(
        before,
      );
      expect(again).toBe(0);
      expect(written).toBeGreaterThan(stored.length - 1);
    });
  },
);
