import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { InputError } from '@backstage/errors';
import {
  parsePlatform,
  Platform,
  serviceConditions,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { devSummariser } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import { KubernetesObject } from '@kubernetes/client-node';
import { Knex } from 'knex';
import {
  ClusterApplier,
  ClusterStatusReader,
  ClusterTarget,
  KubernetesApplyError,
  resolveFleet,
} from '../cluster';
import { DatabaseGpuStore, ServiceRecord } from '../database';
import { createQuoteService } from './QuoteService';
import { twoClusterPlatformConfig } from '../__testUtils__/twoClusterPlatform';
import { seedQuotas } from './seedQuotas';
import { MOVE_ACTOR, ServiceManager } from './ServiceManager';
import { ServiceStatusRefresher } from './ServiceStatusRefresher';

jest.setTimeout(60_000);

const USER = 'user:default/alice';
const dev: ClusterTarget = { name: 'dev', mode: 'apply' };
const prod: ClusterTarget = { name: 'prod-eu', mode: 'apply' };

/** The demo platform on two clusters: the on-demand L4s on prod-eu, every other pool (the H100s) on dev. */
const platform: Platform = resolveFleet(
  parsePlatform(twoClusterPlatformConfig),
  [dev, prod],
);

/** A dev service of ml-platform on dev's H100s (within its quota): what the tests move to prod-eu's L4s. */
const onDev = { ...devSummariser, name: 'mover', pool: 'h100' };

/** One cluster: records what is applied and deleted there; `refuse` makes its applies fail for good. */
function fakeCluster(name: string) {
  const applied: string[] = [];
  const deleted: string[] = [];
  const state = { refuse: false };
  const applier: ClusterApplier = {
    cluster: name,
    async apply(objects: KubernetesObject[]) {
      if (state.refuse) {
        throw new KubernetesApplyError(
          name,
          { apiVersion: 'apps/v1', kind: 'Deployment', name: 'mover' },
          1,
          'admission webhook denied the request',
          422,
        );
      }
      applied.push(...objects.map(o => `${o.kind}/${o.metadata?.name}`));
      return [];
    },
    async deleteByOwnership(serviceId) {
      deleted.push(serviceId);
      return [];
    },
    deleteObjects: async () => [],
    diff: async () => ({ inSync: true, drifted: [] }),
    read: async () => undefined,
    list: async () => [],
    serves: async () => true,
  };
  return { applier, applied, deleted, state };
}

/** A status reader whose Deployment is available when `available()` says so. */
function reader(cluster: string, available: () => boolean) {
  return {
    cluster,
    read: async () => {
      const up = available();
      return {
        cluster,
        observedAt: new Date().toISOString(),
        deployment: {
          exists: true,
          available: up,
          replicas: 1,
          readyReplicas: up ? 1 : 0,
          availableReplicas: up ? 1 : 0,
          updatedReplicas: 1,
          conditions: [],
        },
      };
    },
  } as unknown as ClusterStatusReader;
}

// PostgreSQL runs when scripts/test provides it (BACKSTAGE_TEST_DATABASE_POSTGRES15_CONNECTION_STRING).
const databases = TestDatabases.create({ ids: ['POSTGRES_15', 'SQLITE_3'] });

describe.each(databases.eachSupportedId())(
  'moving a service between clusters on %p',
  id => {
    let knex: Knex;

    beforeAll(async () => {
      knex = await databases.init(id);
    });

    /** Both clusters in apply mode (prod-eu without an applier when `prodApplies` is false), applied in line. */
    async function setup(options: { prodApplies?: boolean } = {}) {
      const store = await DatabaseGpuStore.create({
        database: mockServices.database({ knex }),
        platform,
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
      const devCluster = fakeCluster('dev');
      const prodCluster = fakeCluster('prod-eu');
      const services = new ServiceManager({
        platform,
        store,
        quotes: createQuoteService({
          platform,
          store,
          autoscaledReplicas: 'maximum',
        }),
        target: dev,
        applier: devCluster.applier,
        clusters: new Map([
          ['dev', { target: dev, applier: devCluster.applier }],
          [
            'prod-eu',
            options.prodApplies === false
              ? { target: { ...prod, mode: 'gitops' } }
              : { target: prod, applier: prodCluster.applier },
          ],
        ]),
        logger: mockServices.logger.mock(),
      });
      const available = { dev: true, 'prod-eu': false };
      const refresher = new ServiceStatusRefresher({
        store,
        statusReaders: new Map([
          ['dev', reader('dev', () => available.dev)],
          ['prod-eu', reader('prod-eu', () => available['prod-eu'])],
        ]),
        logger: mockServices.logger.mock(),
        completeMove: service => services.completeMove(service),
      });
      return { store, services, refresher, devCluster, prodCluster, available };
    }

    /** A service ready on dev. */
    async function readyOnDev(
      context: Awaited<ReturnType<typeof setup>>,
    ): Promise<ServiceRecord> {
      const created = await context.services.create({ request: onDev }, USER);
      expect(created.service).toMatchObject({
        cluster: 'dev',
        status: 'starting',
      });
      const refreshed = await context.refresher.refreshStatus(
        created.service.id,
      );
      expect(refreshed.service.status).toBe('ready');
      return refreshed.service;
    }

    const moving = (service: ServiceRecord) =>
      serviceConditions(service).find(c => c.type === 'Moving');

    it('applies on the new cluster first, keeps the old one until the new is available, then removes it there; one reservation throughout', async () => {
      const context = await setup();
      const { services, refresher, store, devCluster, prodCluster } = context;
      const before = await readyOnDev(context);
      const devApplies = devCluster.applied.length;

      const changed = await services.update(
        before.id,
        { pool: 'l4-ondemand' },
        USER,
      );
      expect(changed.service).toMatchObject({
        cluster: 'prod-eu',
        movingFrom: 'dev',
        pool: 'l4-ondemand',
        status: 'starting',
      });
      // Applied on prod-eu only; nothing deleted on dev yet.
      expect(prodCluster.applied).toContain('Deployment/mover');
      expect(devCluster.applied).toHaveLength(devApplies);
      expect(devCluster.deleted).toEqual([]);
      expect(moving(changed.service)).toMatchObject({
        status: 'True',
        reason: 'MoveWaitingForTarget',
      });
      // The reservation moved with it: the H100 one released, one held on the L4s (not both).
      const reservations = await store.listReservations(before.id);
      expect(
        reservations.filter(r => r.state === 'held').map(r => r.pool),
      ).toEqual(['l4-ondemand']);
      expect(reservations.find(r => r.pool === 'h100')?.state).toBe('released');

      // prod-eu not available yet: dev keeps serving, however often it is read.
      for (let i = 0; i < 3; i++) {
        const waiting = await refresher.refreshStatus(before.id);
        expect(waiting.service).toMatchObject({
          status: 'starting',
          movingFrom: 'dev',
        });
      }
      expect(devCluster.deleted).toEqual([]);

      context.available['prod-eu'] = true;
      const done = await refresher.refreshStatus(before.id);
      expect(devCluster.deleted).toEqual([before.id]);
      expect(prodCluster.deleted).toEqual([]);
      expect(done.service.status).toBe('ready');
      expect(done.service.reason).toBe('Available');
      expect(done.service.cluster).toBe('prod-eu');
      expect(done.service.movingFrom).toBeUndefined();
      expect(moving(done.service)).toBeUndefined();
      expect(done.service.statusReason).toBe(
        'Moved from cluster dev to cluster prod-eu: available there, its objects on dev removed',
      );
      // Read again from the store: the move is recorded as done.
      expect((await services.get(before.id)).movingFrom).toBeUndefined();
      const audit = await store.listAuditEvents({
        subjectId: before.id,
        actor: MOVE_ACTOR,
      });
      expect(audit.items).toHaveLength(1);
      // A later refresh deletes nothing more.
      await refresher.refreshStatus(before.id);
      expect(devCluster.deleted).toEqual([before.id]);
    });

    it('says MoveRemovingSource while the old cluster does not take the delete, and finishes at a later refresh', async () => {
      const context = await setup();
      const { services, refresher, devCluster } = context;
      const before = await readyOnDev(context);
      await services.update(before.id, { pool: 'l4-ondemand' }, USER);
      context.available['prod-eu'] = true;
      const deleteOnDev = devCluster.applier.deleteByOwnership;
      devCluster.applier.deleteByOwnership = async () => {
        throw new Error('connect ECONNREFUSED 127.0.0.1:17402');
      };
      const stuck = await refresher.refreshStatus(before.id);
      expect(stuck.service).toMatchObject({
        status: 'ready',
        movingFrom: 'dev',
      });
      expect(moving(stuck.service)).toMatchObject({
        status: 'True',
        reason: 'MoveRemovingSource',
      });
      devCluster.applier.deleteByOwnership = deleteOnDev;
      const done = await refresher.refreshStatus(before.id);
      expect(done.service.movingFrom).toBeUndefined();
      expect(devCluster.deleted).toEqual([before.id]);
    });

    it('keeps the old cluster serving when the new one refuses the apply', async () => {
      const context = await setup();
      const { services, refresher, devCluster, prodCluster } = context;
      const before = await readyOnDev(context);
      prodCluster.state.refuse = true;
      const changed = await services.update(
        before.id,
        { pool: 'l4-ondemand' },
        USER,
      );
      expect(changed.service).toMatchObject({
        status: 'failed',
        reason: 'ApplyFailed',
        cluster: 'prod-eu',
        movingFrom: 'dev',
      });
      expect(moving(changed.service)).toMatchObject({
        reason: 'MoveWaitingForTarget',
      });
      await refresher.refreshStatus(before.id);
      expect(devCluster.deleted).toEqual([]);
    });

    it('moves back to the cluster it is leaving (the other one’s objects go once it is available there)', async () => {
      const context = await setup();
      const { services, refresher, devCluster, prodCluster } = context;
      const before = await readyOnDev(context);
      await services.update(before.id, { pool: 'l4-ondemand' }, USER);
      const back = await services.update(before.id, { pool: 'h100' }, USER);
      expect(back.service).toMatchObject({
        cluster: 'dev',
        movingFrom: 'prod-eu',
        pool: 'h100',
      });
      const done = await refresher.refreshStatus(before.id);
      expect(done.service).toMatchObject({ status: 'ready', cluster: 'dev' });
      expect(done.service.movingFrom).toBeUndefined();
      expect(prodCluster.deleted).toEqual([before.id]);
      expect(devCluster.deleted).toEqual([]);
    });

    it('deletes a service that is moving from both clusters and releases its one reservation', async () => {
      const context = await setup();
      const { services, store, devCluster, prodCluster } = context;
      const before = await readyOnDev(context);
      await services.update(before.id, { pool: 'l4-ondemand' }, USER);
      const deleted = await services.teardown(before.id, USER);
      expect(deleted.status).toBe('deleted');
      expect(deleted.movingFrom).toBeUndefined();
      expect(prodCluster.deleted).toEqual([before.id]);
      expect(devCluster.deleted).toEqual([before.id]);
      expect(
        (await store.listReservations(before.id)).filter(
          r => r.state !== 'released',
        ),
      ).toEqual([]);
    });

    it('refuses (400) to move a service Backstage applies to a cluster it does not apply to, and changes nothing', async () => {
      const context = await setup({ prodApplies: false });
      const before = await readyOnDev(context);
      const move = context.services.update(
        before.id,
        { pool: 'l4-ondemand' },
        USER,
      );
      await expect(move).rejects.toThrow(InputError);
      await expect(move).rejects.toThrow(
        'Service mover is applied by Backstage on cluster dev; pool l4-ondemand is on cluster prod-eu (mode gitops), where Backstage does not apply it',
      );
      const after = await context.services.get(before.id);
      expect(after).toMatchObject({
        cluster: 'dev',
        pool: 'h100',
        status: 'ready',
        updatedAt: before.updatedAt,
      });
      expect(after.movingFrom).toBeUndefined();
    });
  },
);
