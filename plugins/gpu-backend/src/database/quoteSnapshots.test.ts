import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { GPU_UNITS_PER_EQUIVALENT } from '@gpu-platform/backstage-plugin-gpu-common';
import { Knex } from 'knex';
import { dedicatedCreateInput } from './__testUtils__/dedicatedCreateInput';
import { storePlatform } from './__testUtils__/storePlatform';
import { DatabaseGpuStore } from './DatabaseGpuStore';

jest.setTimeout(60_000);

const databases = TestDatabases.create({ ids: ['POSTGRES_15', 'SQLITE_3'] });

const ADMIN = 'user:default/platform-admin';
/** Long enough that only this store's own transactions make a snapshot stale within a test. */
const MAX_AGE_MS = 600_000;
/**
 * A store's clock for tests that compare a kept month with a fresh read: the month counts the seconds left from the
 * store's now, which would differ between a create and a later read made in the next second.
 */
const stoppedClock = () => new Date('2026-11-20T12:00:00Z');

function create(name: string, team: string, pool: string) {
  return dedicatedCreateInput({ name, team, pool, actor: ADMIN });
}

/**
 * The quotes' snapshots (a team's ledger and month, what every pool holds) are answered from memory until a
 * transaction of this store that may have changed them ends: a create makes only its team's and its pool's stale.
 * A second store on the same database stands for another backend replica, whose writes show only after the
 * maximum age.
 */
describe.each(databases.eachSupportedId())('quote snapshots on %p', id => {
  let knex: Knex;
  let store: DatabaseGpuStore;
  let replica: DatabaseGpuStore;

  /** A store on the test database: a backend replica with its own snapshots. */
  const newStore = (clock?: () => Date) =>
    DatabaseGpuStore.create({
      database: mockServices.database({ knex }),
      platform: storePlatform,
      clock,
    });

  beforeAll(async () => {
    knex = await databases.init(id);
    store = await newStore();
    replica = await newStore();
    for (const team of ['search', 'ml', 'vision']) {
      await replica.putQuota({
        team,
        quota: {
          pools: { h100: 4, a100: 4 },
          monthlyBudgetMicros: 100_000_000_000,
        },
        actor: ADMIN,
      });
    }
  });

  it("a create renews its team's ledger and month and its pool's holdings, and nothing else", async () => {
    const ledger = (team: string) => store.getLedgerSnapshot(team, MAX_AGE_MS);
    const month = (team: string) =>
      store.getMonthSpendSnapshot(team, MAX_AGE_MS);
    const held = () => store.getPoolHeldSnapshot(MAX_AGE_MS);
    const before = {
      search: await ledger('search'),
      ml: await ledger('ml'),
      mlMonth: await month('ml'),
      held: await held(),
    };
    expect(before.held).toEqual({});

    // Another replica creates for ml on h100: not seen here before the maximum age.
    await replica.createServiceWithReservation(
      create('elsewhere', 'ml', 'h100'),
    );
    // This store creates for search on a100.
    const created = await store.createServiceWithReservation(
      create('here', 'search', 'a100'),
    );
    expect(created.reservation?.state).toBe('held');

    expect((await ledger('search'))?.reservedGpuUnits).toEqual({
      a100: GPU_UNITS_PER_EQUIVALENT,
    });
    expect(await ledger('ml')).toBe(before.ml);
    expect(await month('ml')).toBe(before.mlMonth);
    expect(await held()).toEqual({
      a100: { units: GPU_UNITS_PER_EQUIVALENT, unitsByProfile: {} },
    });

    // Any other transaction (here a release) may have changed anything: every snapshot is read again.
    await store.releaseReservation({
      serviceId: created.service.id,
      actor: ADMIN,
    });
    expect((await ledger('search'))?.reservedGpuUnits).toEqual({});
    expect((await ledger('ml'))?.reservedGpuUnits).toEqual({
      h100: GPU_UNITS_PER_EQUIVALENT,
    });
    expect((await month('ml')).heldRestOfMonth).toBeGreaterThan(0);
    expect(await held()).toEqual({
      h100: { units: GPU_UNITS_PER_EQUIVALENT, unitsByProfile: {} },
    });
  });

  it("after a create, the team's month is what admission read with the create's reservation, without reading it again", async () => {
    const clocked = () => newStore(stoppedClock);
    const [writer, other] = await Promise.all([clocked(), clocked()]);
    const readNow = async () =>
      (await clocked()).getMonthSpendSnapshot('search', MAX_AGE_MS);
    await writer.createServiceWithReservation(
      create('month-a', 'search', 'a100'),
    );
    const afterA = await readNow();
    expect(afterA.heldRestOfMonth).toBeGreaterThan(0);
    // Another replica's create comes next: a store that reads the month now sees it, this one does not read.
    await other.createServiceWithReservation(
      create('month-b', 'search', 'h100'),
    );
    expect((await readNow()).heldRestOfMonth).toBeGreaterThan(
      afterA.heldRestOfMonth,
    );
    expect(await writer.getMonthSpendSnapshot('search', MAX_AGE_MS)).toEqual(
      afterA,
    );
    // A transaction without a scope of this store makes it read again.
    await writer.putQuota({
      team: 'ml',
      quota: { pools: { h100: 4 }, monthlyBudgetMicros: 100_000_000_000 },
      actor: ADMIN,
    });
    expect(await writer.getMonthSpendSnapshot('search', MAX_AGE_MS)).toEqual(
      await readNow(),
    );
  });

  it("after a create, the team's ledger is the one read before with what admission read on the create's pool", async () => {
    const writer = await newStore();
    const readNow = async () =>
      (await newStore()).getLedgerSnapshot('search', MAX_AGE_MS);
    const before = await writer.getLedgerSnapshot('search', MAX_AGE_MS);
    await writer.createServiceWithReservation(
      create('ledger-a', 'search', 'a100'),
    );
    const afterA = await readNow();
    expect(afterA?.reservedGpuUnits.a100).toBe(
      (before?.reservedGpuUnits.a100 ?? 0) + GPU_UNITS_PER_EQUIVALENT,
    );
    // Another replica's create on another pool: seen by a store that reads, not by this one, which did not read.
    await replica.createServiceWithReservation(
      create('ledger-b', 'search', 'h100'),
    );
    expect((await readNow())?.reservedGpuUnits.h100).toBe(
      (afterA?.reservedGpuUnits.h100 ?? 0) + GPU_UNITS_PER_EQUIVALENT,
    );
    expect(await writer.getLedgerSnapshot('search', MAX_AGE_MS)).toEqual(
      afterA,
    );
  });

  /** The statements `store` sends while `read` runs. */
  const statementsOf = async <T>(read: () => Promise<T>) => {
    const sent: string[] = [];
    const onQuery = (query: { sql: string }) => sent.push(query.sql);
    knex.on('query', onQuery);
    try {
      return { value: await read(), sent };
    } finally {
      knex.off('query', onQuery);
    }
  };

  /** A team's snapshots as `of` answers them. */
  const snapshotsOf = async (of: DatabaseGpuStore, team: string) => ({
    ledger: await of.getLedgerSnapshot(team, MAX_AGE_MS),
    month: await of.getMonthSpendSnapshot(team, MAX_AGE_MS),
    held: await of.getPoolHeldSnapshot(MAX_AGE_MS),
  });

  it("keeps a team's snapshots through its concurrent creates on one pool, each as it committed", async () => {
    const writer = await newStore(stoppedClock);
    await snapshotsOf(writer, 'vision');
    const created = await Promise.all(
      ['burst-a', 'burst-b', 'burst-c'].map(name =>
        writer.createServiceWithReservation(create(name, 'vision', 'a100')),
      ),
    );
    expect(created.map(c => c.reservation?.state)).toEqual([
      'held',
      'held',
      'held',
    ]);
    const { value, sent } = await statementsOf(() =>
      snapshotsOf(writer, 'vision'),
    );
    expect(sent).toEqual([]);
    expect(value).toEqual(
      await snapshotsOf(await newStore(stoppedClock), 'vision'),
    );
    expect(value.ledger?.reservedGpuUnits.a100).toBe(
      3 * GPU_UNITS_PER_EQUIVALENT,
    );
  });

  it("answers a team's snapshots as read after its concurrent creates on two pools", async () => {
    const writer = await newStore(stoppedClock);
    await snapshotsOf(writer, 'vision');
    await Promise.all([
      writer.createServiceWithReservation(create('two-a', 'vision', 'a100')),
      writer.createServiceWithReservation(create('two-h', 'vision', 'h100')),
    ]);
    // On PostgreSQL the two transactions overlap: the one that committed second started before the first ended, on
    // another pool, so it keeps nothing of the team, whose ledger and month are read again (each pool's holdings
    // are its own create's). On SQLite they run one after the other, and the second keeps what the first kept with
    // its own pool.
    const { value, sent } = await statementsOf(() =>
      snapshotsOf(writer, 'vision'),
    );
    expect(sent.length).toBe(id === 'POSTGRES_15' ? 2 : 0);
    expect(value).toEqual(
      await snapshotsOf(await newStore(stoppedClock), 'vision'),
    );
    expect(value.ledger?.reservedGpuUnits).toEqual({
      a100: 4 * GPU_UNITS_PER_EQUIVALENT,
      h100: GPU_UNITS_PER_EQUIVALENT,
    });
  });
});
