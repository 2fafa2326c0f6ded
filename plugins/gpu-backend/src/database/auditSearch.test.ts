import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { InputError } from '@backstage/errors';
import { Knex } from 'knex';
import { dedicatedCreateInput } from './__testUtils__/dedicatedCreateInput';
import { storePlatform } from './__testUtils__/storePlatform';
import { DatabaseGpuStore } from './DatabaseGpuStore';

jest.setTimeout(60_000);

const databases = TestDatabases.create({ ids: ['POSTGRES_15', 'SQLITE_3'] });

const ALICE = 'user:default/alice';
const ADMIN = 'user:default/platform-admin';

function request(name: string, team: string) {
  return dedicatedCreateInput({ name, team, pool: 'a100', actor: ALICE });
}

describe.each(databases.eachSupportedId())('audit search on %p', id => {
  let knex: Knex;
  let store: DatabaseGpuStore;

  beforeAll(async () => {
    knex = await databases.init(id);
    store = await DatabaseGpuStore.create({
      database: mockServices.database({ knex }),
      platform: storePlatform,
      clock: () => new Date('2026-12-21T00:00:00.000Z'),
    });
    for (const table of [
      'audit_events',
      'approvals',
      'reservations',
      'services',
      'pool_quotas',
      'team_quotas',
    ]) {
      await knex(table).delete();
    }
    for (const team of ['search', 'ml']) {
      await store.putQuota({
        team,
        quota: {
          pools: { h100: 0, spot: 0, a100: 4, mig: 0 },
          monthlyBudgetMicros: 10_000_000_000,
        },
        actor: ADMIN,
      });
    }
    await store.createServiceWithReservation(request('Summariser', 'ml'));
    await store.createServiceWithReservation(request('ranker', 'search'));
  });

  const actions = async (search: string, team?: string) =>
    (await store.listAuditEvents({ search, team })).items.map(e =>
      `${e.action} ${e.team ?? ''}`.trim(),
    );

  it('finds the events of a service and of its reservation by the service name, case-insensitively, with their count', async () => {
    const page = await store.listAuditEvents({ search: 'SUMMAR' });
    // Its own event and its reservation's.
    expect(page.items.map(e => e.action)).toEqual([
      'reservation.hold',
      'service.create',
    ]);
    expect(page.items.map(e => e.team)).toEqual(['ml', 'ml']);
    expect(page.totalCount).toBe(2);
  });

  it('finds events by actor, action and team, within the other filters', async () => {
    expect(await actions('platform-admin')).toEqual([
      'quota.put ml',
      'quota.put search',
    ]);
    expect(await actions('quota.')).toEqual([
      'quota.put ml',
      'quota.put search',
    ]);
    expect(await actions('search')).toEqual([
      'reservation.hold search',
      'service.create search',
      'quota.put search',
    ]);
    expect(await actions('alice', 'ml')).toEqual([
      'reservation.hold ml',
      'service.create ml',
    ]);
    // LIKE's wildcards are matched as text.
    expect(await actions('%')).toEqual([]);
    expect(await actions('_')).toEqual([]);
  });

  it('refuses a search of only spaces or longer than 100 characters (400), reading nothing', async () => {
    await expect(store.listAuditEvents({ search: '   ' })).rejects.toThrow(
      InputError,
    );
    await expect(
      store.listAuditEvents({ search: 'x'.repeat(101) }),
    ).rejects.toThrow(/search must be 1 to 100 characters/);
  });
});
