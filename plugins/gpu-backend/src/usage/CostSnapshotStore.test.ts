import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import {
  demoPlatformConfig,
  parsePlatform,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { DatabaseGpuStore } from '../database';
import { seedUsageServices } from './__testUtils__/seedUsageServices';
import { AllocationReader } from './AllocationReader';
import { CostSnapshot, CostSnapshotStore } from './CostSnapshotStore';

jest.setTimeout(60_000);

const databases = TestDatabases.create({ ids: ['POSTGRES_15', 'SQLITE_3'] });
const platform = parsePlatform(demoPlatformConfig);

describe.each(databases.eachSupportedId())('CostSnapshotStore on %p', id => {
  it('stores one row per service and day, completes missing usage once, and lists by day and id', async () => {
    const knex = await databases.init(id);
    const store = await DatabaseGpuStore.create({
      database: mockServices.database({ knex }),
      platform,
    });
    const ids = await seedUsageServices({
      store,
      knex,
      platform,
      services: ['a', 'b'].map(name => ({
        name,
        team: 'ml-platform',
        namespace: 'ml-serving',
        environment: 'dev',
        tier: 'dedicated' as const,
        pool: 'l4-ondemand',
        gpuEquivalents: 1,
        heldAt: '2026-11-01T00:00:00.000Z',
      })),
    });
    const snapshots = new CostSnapshotStore(knex);
    const day = (
      serviceId: string,
      date: string,
      usage?: number,
    ): CostSnapshot => ({
      serviceId,
      day: date,
      team: 'ml-platform',
      pool: 'l4-ondemand',
      tier: 'dedicated',
      allocationMicros: 19_315_200,
      ...(usage === undefined
        ? {}
        : {
            usageMicros: usage,
            idleMicros: 19_315_200 - usage,
            utilisation: usage / 19_315_200,
            method: 'measured',
          }),
      generatedTokens: 1e6,
    });

    expect(
      await snapshots.save([
        day(ids.a, '2026-11-02'),
        day(ids.b, '2026-11-02', 5_000_000),
      ]),
    ).toBe(2);
    // Same days again: nothing written; b keeps its usage.
    expect(
      await snapshots.save([
        day(ids.a, '2026-11-02'),
        day(ids.b, '2026-11-02', 1),
      ]),
    ).toBe(0);
    // a's day lacked usage: completed once.
    expect(await snapshots.save([day(ids.a, '2026-11-02', 7_000_000)])).toBe(1);
    expect(await snapshots.save([day(ids.a, '2026-11-02', 8_000_000)])).toBe(0);
    await snapshots.save([day(ids.a, '2026-11-03', 1_000_000)]);

    const listed = await snapshots.list({
      fromDay: '2026-11-02',
      toDay: '2026-11-02',
    });
    expect(
      listed.map(s => [
        s.serviceId === ids.a ? 'a' : 'b',
        s.usageMicros,
        s.idleMicros,
      ]),
    ).toEqual(
      expect.arrayContaining([
        ['a', 7_000_000, 12_315_200],
        ['b', 5_000_000, 14_315_200],
      ]),
    );
    expect(
      await snapshots.list({
        serviceIds: [ids.a],
        fromDay: '2026-11-01',
        toDay: '2026-11-30',
      }),
    ).toEqual([
      day(ids.a, '2026-11-02', 7_000_000),
      day(ids.a, '2026-11-03', 1_000_000),
    ]);

    const allocations = await new AllocationReader(knex).list({
      team: 'ml-platform',
    });
    expect(
      allocations.map(a => [
        a.service.name,
        a.reservations.length,
        a.reservations[0].heldAt,
      ]),
    ).toEqual([
      ['a', 1, '2026-11-01T00:00:00.000Z'],
      ['b', 1, '2026-11-01T00:00:00.000Z'],
    ]);
    expect(
      await new AllocationReader(knex).get(
        '6b1c3e1e-0000-4000-8000-000000000000',
      ),
    ).toBeUndefined();
    await knex.destroy();
  });
});
