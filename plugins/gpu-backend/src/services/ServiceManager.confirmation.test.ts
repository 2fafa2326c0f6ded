import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { ConfigReader } from '@backstage/config';
import {
  demoPlatformConfig,
  readPlatformConfig,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { devSummariser } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import { Knex } from 'knex';
import { DatabaseGpuStore, GpuStore } from '../database';
import { createQuoteService } from './QuoteService';
import { seedQuotas } from './seedQuotas';
import { CONFIRMATION_EXPIRY_ACTOR, ServiceManager } from './ServiceManager';

jest.setTimeout(60_000);

const USER = 'user:default/alice';
const CONFIRM_WITHIN_MS = 30 * 60_000;
const START = new Date('2026-12-02T08:00:00.000Z');

// PostgreSQL runs when scripts/test provides it (BACKSTAGE_TEST_DATABASE_POSTGRES15_CONNECTION_STRING).
const databases = TestDatabases.create({ ids: ['POSTGRES_15', 'SQLITE_3'] });
const platform = readPlatformConfig(
  new ConfigReader({ gpu: demoPlatformConfig }),
);

describe.each(databases.eachSupportedId())('provisional services on %p', id => {
  let knex: Knex;
  let now: Date;

  beforeAll(async () => {
    knex = await databases.init(id);
  });

  /** A dry-run backend whose clock the test moves; `wrap` stands between the manager and its store. */
  async function setup(wrap: (store: GpuStore) => GpuStore = s => s) {
    now = START;
    const store = await DatabaseGpuStore.create({
      database: mockServices.database({ knex }),
      platform,
      clock: () => now,
    });
    for (const table of [
      'audit_events',
      'approvals',
      'reservations',
      'cost_snapshots',
      'services',
      'pool_quotas',
      'team_quotas',
    ]) {
      await knex(table).delete();
    }
    await seedQuotas({ platform, store, logger: mockServices.logger.mock() });
    const manager = new ServiceManager({
      platform,
      store: wrap(store),
      quotes: createQuoteService({
        platform,
        store,
        autoscaledReplicas: 'maximum',
      }),
      target: { mode: 'dry-run' },
      logger: mockServices.logger.mock(),
      confirmWithinMs: CONFIRM_WITHIN_MS,
      now: () => now,
    });
    return { store, manager };
  }

  const provisional = (name: string) => ({
    request: { ...devSummariser, name },
    provisional: true,
  });

  async function heldState(store: GpuStore, serviceId: string) {
    return (await store.listReservations(serviceId)).map(r => r.state);
  }

  it('deletes an unconfirmed service and releases its quota once its time has passed, not before', async () => {
    const { store, manager } = await setup();
    const { service } = await manager.create(provisional('report'), USER);
    expect(service.confirmBy).toBe(
      new Date(START.getTime() + CONFIRM_WITHIN_MS).toISOString(),
    );
    expect(await heldState(store, service.id)).toEqual(['held']);

    now = new Date(START.getTime() + CONFIRM_WITHIN_MS - 1);
    expect(await manager.expireUnconfirmed()).toEqual([]);
    expect((await manager.get(service.id)).status).toBe('approved');

    now = new Date(START.getTime() + CONFIRM_WITHIN_MS);
    const [expired] = await manager.expireUnconfirmed();
    expect(expired).toMatchObject({
      id: service.id,
      status: 'deleted',
      reason: 'Deleted',
      statusReason: expect.stringMatching(
        /^Not confirmed by .*the template run that requested it did not finish/,
      ),
    });
    expect(await heldState(store, service.id)).toEqual(['released']);
    const audit = await store.listAuditEvents({ subjectId: service.id });
    expect(audit.items.map(e => e.actor)).toContain(CONFIRMATION_EXPIRY_ACTOR);

    // Expired: confirming it now is a conflict that says why, and a second pass finds nothing to do.
    await expect(manager.confirm(service.id, USER)).rejects.toMatchObject({
      name: 'ConflictError',
      message: expect.stringContaining(
        `can no longer be confirmed: it was not confirmed by ${service.confirmBy}`,
      ),
    });
    expect(await manager.expireUnconfirmed()).toEqual([]);
  });

  it('keeps a confirmed service; confirming twice changes nothing', async () => {
    const { store, manager } = await setup();
    const { service } = await manager.create(provisional('kept'), USER);
    const confirmed = await manager.confirm(service.id, USER);
    expect(confirmed.confirmBy).toBeUndefined();
    const again = await manager.confirm(service.id, USER);
    expect(again.updatedAt).toBe(confirmed.updatedAt);

    now = new Date(START.getTime() + 2 * CONFIRM_WITHIN_MS);
    expect(await manager.expireUnconfirmed()).toEqual([]);
    expect((await manager.get(service.id)).status).toBe('approved');
    expect(await heldState(store, service.id)).toEqual(['held']);
    const actions = (
      await store.listAuditEvents({ subjectId: service.id })
    ).items.map(e => e.action);
    expect(actions.filter(a => a === 'service.confirm')).toHaveLength(1);
  });

  it('never deletes a service confirmed between the expiry read and its delete', async () => {
    const race: { confirmFirst?: () => Promise<unknown> } = {};
    const { store, manager } = await setup(inner => {
      return new Proxy(inner, {
        get(target, property, receiver) {
          if (property === 'listUnconfirmedServices') {
            return async (before: Date) => {
              const listed = await target.listUnconfirmedServices(before);
              await race.confirmFirst?.();
              return listed;
            };
          }
          const value = Reflect.get(target, property, receiver);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    });
    const { service } = await manager.create(provisional('racing'), USER);
    race.confirmFirst = () =>
      store.confirmService({ id: service.id, actor: USER });
    now = new Date(START.getTime() + CONFIRM_WITHIN_MS + 1);
    expect(await manager.expireUnconfirmed()).toEqual([]);
    expect((await manager.get(service.id)).status).toBe('approved');
    expect(await heldState(store, service.id)).toEqual(['held']);
  });

  it('withdraws an unconfirmed request that waits for approval, leaving nothing pending', async () => {
    const { store, manager } = await setup();
    const { service, approval } = await manager.create(
      {
        request: { ...devSummariser, name: 'large', replicas: 4 },
        provisional: true,
      },
      USER,
    );
    expect(service.status).toBe('pending-approval');
    expect(approval).toBeDefined();
    now = new Date(START.getTime() + CONFIRM_WITHIN_MS);
    const [expired] = await manager.expireUnconfirmed();
    expect(expired).toMatchObject({ id: service.id, status: 'deleted' });
    expect(await heldState(store, service.id)).toEqual(['released']);
    expect(
      await store.listApprovals({ state: 'pending', serviceId: service.id }),
    ).toEqual([]);
  });

  it('leaves a service created without provisional alone', async () => {
    const { manager } = await setup();
    const { service } = await manager.create(
      { request: { ...devSummariser, name: 'plain' } },
      USER,
    );
    expect(service.confirmBy).toBeUndefined();
    now = new Date(START.getTime() + 10 * CONFIRM_WITHIN_MS);
    expect(await manager.expireUnconfirmed()).toEqual([]);
  });
});
