/*
 * The status refresh records when a workload runs (what cost accrues over): from the Deployment's Available
 * transition on its first available replica, until it has none (Kueue eviction) or is torn down.
 */
import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { ConfigReader } from '@backstage/config';
import {
  ClusterDeploymentStatus,
  demoPlatformConfig,
  readPlatformConfig,
  ServiceClusterStatus,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { Knex } from 'knex';
import { ClusterStatusReader } from '../cluster';
import { DatabaseGpuStore } from '../database';
import { listRunPeriods, RunPeriodStore } from '../database/runPeriods';
import { seedUsageServices } from '../usage/__testUtils__/seedUsageServices';
import { ServiceStatusRefresher } from './ServiceStatusRefresher';

// PostgreSQL runs when BACKSTAGE_TEST_DATABASE_POSTGRES15_CONNECTION_STRING is set.
const databases = TestDatabases.create({ ids: ['POSTGRES_15', 'SQLITE_3'] });
const platform = readPlatformConfig(
  new ConfigReader({ gpu: demoPlatformConfig }),
);

/**
 * Times after the wall clock: the store stamps its writes (`updatedAt`) with the wall clock, and a Deployment's
 * transition counts only after the service's last stored change.
 */
const BASE = Math.ceil(Date.now() / 3_600_000 + 24) * 3_600_000;
const at = (minutes: number) => new Date(BASE + minutes * 60_000);

function deployment(
  available: number,
  availableSince?: Date,
): ClusterDeploymentStatus {
  return {
    name: 'summariser',
    namespace: 'ml-serving',
    exists: true,
    replicas: 1,
    currentReplicas: 1,
    updatedReplicas: 1,
    readyReplicas: available,
    availableReplicas: available,
    available: available === 1,
    ...(available === 1 ? {} : { reason: '0 of 1 replicas available' }),
    conditions: [
      {
        type: 'Available',
        status: available === 1 ? 'True' : 'False',
        lastTransitionTime: (availableSince ?? at(0)).toISOString(),
      },
    ],
  };
}

const evicted: ServiceClusterStatus['admission'] = {
  state: 'pending',
  admitted: 0,
  pending: 1,
  flavors: {},
  reason: 'Pending',
  message: 'Preempted to accommodate a higher priority Workload',
  workloads: [],
};

describe.each(databases.eachSupportedId())(
  'ServiceStatusRefresher run periods on %p',
  id => {
    let knex: Knex;
    let store: DatabaseGpuStore;

    beforeAll(async () => {
      knex = await databases.init(id);
      store = await DatabaseGpuStore.create({
        database: mockServices.database({ knex }),
        platform,
      });
    });

    it('opens a run at the Available transition, closes it on eviction and on teardown', async () => {
      const ids = await seedUsageServices({
        store,
        knex,
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
            heldAt: at(0).toISOString(),
            runs: [],
          },
        ],
      });
      const serviceId = ids.summariser;
      await knex('services')
        .where({ id: serviceId })
        .update({ status: 'starting', updated_at: new Date() });
      let clock = at(25);
      let answer: ServiceClusterStatus = {
        cluster: 'gpu-eu',
        observedAt: clock.toISOString(),
        deployment: deployment(1, at(20)),
      };
      const reader = {
        cluster: 'gpu-eu',
        read: async () => answer,
      } as unknown as ClusterStatusReader;
      const refresher = new ServiceStatusRefresher({
        store,
        statusReader: reader,
        runs: new RunPeriodStore(knex),
        logger: mockServices.logger.mock(),
        now: () => clock,
      });

      const first = await refresher.refreshStatus(serviceId);
      expect(first.service.status).toBe('ready');
      let periods = (await listRunPeriods(knex, [serviceId])).get(serviceId);
      expect(periods).toEqual([
        {
          serviceId,
          startedAt: at(20).toISOString(),
          startedBasis: 'deployment-available',
        },
      ]);

      // Read again while it runs: nothing new.
      clock = at(40);
      answer = { ...answer, observedAt: clock.toISOString() };
      await refresher.refreshStatus(serviceId);
      expect(
        (await listRunPeriods(knex, [serviceId])).get(serviceId),
      ).toHaveLength(1);

      // Kueue evicts it: no available replica, the run stops when the cluster said so.
      clock = at(60);
      answer = {
        cluster: 'gpu-eu',
        observedAt: clock.toISOString(),
        deployment: deployment(0, at(58)),
        admission: evicted,
      };
      const evictedRefresh = await refresher.refreshStatus(serviceId);
      expect(evictedRefresh.service.status).toBe('starting');
      periods = (await listRunPeriods(knex, [serviceId])).get(serviceId);
      expect(periods?.[0]).toMatchObject({
        stoppedAt: at(60).toISOString(),
        stopReason: expect.stringContaining('Waiting for Kueue admission'),
      });

      // Admitted again: a second run from its new Available transition.
      clock = at(90);
      answer = {
        cluster: 'gpu-eu',
        observedAt: clock.toISOString(),
        deployment: deployment(1, at(85)),
      };
      await refresher.refreshStatus(serviceId);
      periods = (await listRunPeriods(knex, [serviceId])).get(serviceId);
      expect(periods?.map(p => [p.startedAt, p.stoppedAt])).toEqual([
        [at(20).toISOString(), at(60).toISOString()],
        [at(85).toISOString(), undefined],
      ]);

      // Torn down: the store closes the run in the transaction that releases the reservation.
      const service = (await store.getService(serviceId))!;
      await store.updateServiceStatus({
        id: serviceId,
        status: 'deleted',
        reason: 'Deleted',
        statusReason: 'torn down',
        releaseReservation: true,
        expectedStatus: [service.status],
        expectedUpdatedAt: service.updatedAt,
        actor: 'user:default/alice',
      });
      periods = (await listRunPeriods(knex, [serviceId])).get(serviceId);
      expect(periods?.[1]).toMatchObject({
        stopReason: 'deleted: torn down',
      });
      expect(periods?.[1].stoppedAt).toBeDefined();
    });

    it('records nothing when the cluster cannot be read, and nothing for a service changed meanwhile', async () => {
      const ids = await seedUsageServices({
        store,
        knex,
        platform,
        services: [
          {
            name: 'chat',
            team: 'ml-platform',
            namespace: 'ml-serving',
            environment: 'production',
            tier: 'dedicated',
            pool: 'l4-ondemand',
            gpuEquivalents: 1,
            heldAt: at(0).toISOString(),
            runs: [],
          },
        ],
      });
      const serviceId = ids.chat;
      await knex('services')
        .where({ id: serviceId })
        .update({ status: 'starting', updated_at: new Date() });
      const refresher = new ServiceStatusRefresher({
        store,
        statusReader: {
          cluster: 'gpu-eu',
          read: async () => {
            throw new Error('connection refused');
          },
        } as unknown as ClusterStatusReader,
        runs: new RunPeriodStore(knex),
        logger: mockServices.logger.mock(),
        now: () => at(30),
      });
      await refresher.refreshStatus(serviceId);
      expect((await listRunPeriods(knex, [serviceId])).get(serviceId)).toBe(
        undefined,
      );

      const runs = new RunPeriodStore(knex);
      const stale = (await store.getService(serviceId))!;
      await knex('services')
        .where({ id: serviceId })
        .update({ updated_at: new Date(Date.now() + 60_000) });
      await expect(
        runs.record(stale, {
          running: true,
          since: at(30),
          basis: 'observed',
        }),
      ).resolves.toBe('superseded');
      expect((await listRunPeriods(knex, [serviceId])).get(serviceId)).toBe(
        undefined,
      );
    });
  },
);
