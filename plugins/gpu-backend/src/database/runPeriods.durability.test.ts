/*
 * Run periods outlive a restart: written by one backend on a SQLite file (as app-config.yaml's default stores the
 * plugin database), read by the next one on the same file after its migrations ran again, and the cost it computes
 * from them is the same.
 */
import { mockServices } from '@backstage/backend-test-utils';
import {
  demoPlatformConfig,
  parsePlatform,
} from '@gpu-platform/backstage-plugin-gpu-common';
import knexFactory, { Knex } from 'knex';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DateTime } from 'luxon';
import { seedUsageServices } from '../usage/__testUtils__/seedUsageServices';
import { AllocationReader } from '../usage/AllocationReader';
import { CostSnapshotStore } from '../usage/CostSnapshotStore';
import { UsageService } from '../usage/UsageService';
import { DatabaseGpuStore } from './DatabaseGpuStore';
import { listRunPeriods, RunPeriodStore } from './runPeriods';

const platform = parsePlatform(demoPlatformConfig);
const dir = mkdtempSync(path.join(tmpdir(), 'gpu-run-periods-'));
const file = path.join(dir, 'gpu.sqlite');

/** One backend's view of the file: a fresh connection and the store's migrations. */
async function open(): Promise<{ knex: Knex; store: DatabaseGpuStore }> {
  const knex = knexFactory({
    client: 'better-sqlite3',
    connection: { filename: file },
    useNullAsDefault: true,
  });
  const store = await DatabaseGpuStore.create({
    database: mockServices.database({ knex }),
    platform,
  });
  return { knex, store };
}

function usage(knex: Knex) {
  return new UsageService({
    platform,
    reader: new AllocationReader(knex),
    snapshots: new CostSnapshotStore(knex),
    quotas: { getQuota: async () => undefined, listQuotas: async () => [] },
    now: () => DateTime.fromISO('2026-11-20T13:00:00Z', { zone: 'utc' }),
  });
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('keeps run periods and the cost computed from them across a restart', async () => {
  const first = await open();
  const ids = await seedUsageServices({
    store: first.store,
    knex: first.knex,
    platform,
    services: [
      {
        name: 'summariser',
        team: 'ml-platform',
        namespace: 'ml-serving',
        environment: 'production',
        tier: 'dedicated',
        pool: 'l4-ondemand',
        gpuEquivalents: 1,
        heldAt: '2026-11-20T10:00:00Z',
        runs: [],
      },
    ],
  });
  const id = ids.summariser;
  const service = (await first.store.getService(id))!;
  await expect(
    new RunPeriodStore(first.knex).record(service, {
      running: true,
      since: new Date('2026-11-20T10:20:00Z'),
      basis: 'deployment-available',
    }),
  ).resolves.toBe('started');
  const before = await usage(first.knex).serviceCost(id, '24h');
  await first.knex.destroy();

  const second = await open();
  expect((await listRunPeriods(second.knex, [id])).get(id)).toEqual([
    {
      serviceId: id,
      startedAt: '2026-11-20T10:20:00.000Z',
      startedBasis: 'deployment-available',
    },
  ]);
  const after = await usage(second.knex).serviceCost(id, '24h');
  // $0.8048 per L4-hour: 2 h 40 min running (10:20 to 13:00), 20 min reserved.
  expect(after.allocationMicros).toBe(Math.round((804_800 * 160) / 60));
  expect(after.reservedMicros).toBe(Math.round((804_800 * 20) / 60));
  expect(after).toEqual(before);
  await second.knex.destroy();
});
