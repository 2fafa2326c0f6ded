import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { InputError } from '@backstage/errors';
import {
  parsePlatform,
  Platform,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  devSummariser,
  summariserOnDedicatedL4,
} from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import { ClusterStatusReader, ClusterTarget, resolveFleet } from '../cluster';
import { DatabaseGpuStore } from '../database';
import { createQuoteService } from './QuoteService';
import { twoClusterPlatformConfig } from '../__testUtils__/twoClusterPlatform';
import { seedQuotas } from './seedQuotas';
import { ServiceManager } from './ServiceManager';
import { ServiceStatusRefresher } from './ServiceStatusRefresher';

const USER = 'user:default/alice';
const dev: ClusterTarget = { name: 'dev', mode: 'dry-run' };
const prod: ClusterTarget = { name: 'prod-eu', mode: 'dry-run' };

/** The demo platform on two clusters: the on-demand L4s on prod-eu, every other pool on dev; production on prod-*. */
const platform: Platform = resolveFleet(
  parsePlatform(twoClusterPlatformConfig),
  [dev, prod],
);

const databases = TestDatabases.create({ ids: ['SQLITE_3'] });

async function manager(mode: ClusterTarget['mode'] = 'dry-run') {
  const knex = await databases.init('SQLITE_3');
  const store = await DatabaseGpuStore.create({
    database: mockServices.database({ knex }),
    platform,
  });
  await seedQuotas({ platform, store, logger: mockServices.logger.mock() });
  return {
    store,
    services: new ServiceManager({
      platform,
      store,
      quotes: createQuoteService({
        platform,
        store,
        autoscaledReplicas: 'maximum',
      }),
      target: { ...dev, mode },
      clusters: new Map([
        ['dev', { target: { ...dev, mode } }],
        ['prod-eu', { target: { ...prod, mode } }],
      ]),
      logger: mockServices.logger.mock(),
    }),
  };
}

describe('ServiceManager on a fleet of clusters', () => {
  it('records each service on its pool’s cluster: production on prod-eu, a dev request on dev', async () => {
    const { services } = await manager();
    const production = await services.create(
      { request: { ...summariserOnDedicatedL4, pool: undefined } },
      USER,
    );
    expect(production.service.pool).toBe('l4-ondemand');
    expect(production.service.cluster).toBe('prod-eu');
    const onDev = await services.create(
      { request: { ...devSummariser, name: 'dev-sum', pool: 'spot-l4' } },
      USER,
    );
    expect(onDev.service.cluster).toBe('dev');
  });

  it('refuses a production request on a pool of the dev cluster with a 400 naming the clusters', async () => {
    const { services } = await manager();
    const attempt = services.create(
      {
        request: {
          ...summariserOnDedicatedL4,
          name: 'prod-on-dev',
          pool: 'spot-l4',
        },
      },
      USER,
    );
    await expect(attempt).rejects.toThrow(InputError);
    await expect(attempt).rejects.toThrow(
      'Environment production may not run on cluster dev (pool spot-l4); it may use clusters prod-*',
    );
  });
});

describe('ServiceManager changes on a fleet', () => {
  it('moves a rendered-only service to the other cluster by a change of pool: its cluster changes, nothing to remove', async () => {
    const { services } = await manager();
    const created = await services.create(
      { request: { ...devSummariser, name: 'dev-sum', pool: 'h100' } },
      USER,
    );
    expect(created.service.cluster).toBe('dev');
    const moved = await services.update(
      created.service.id,
      { pool: 'l4-ondemand' },
      USER,
    );
    expect(moved.service).toMatchObject({
      cluster: 'prod-eu',
      pool: 'l4-ondemand',
      status: 'approved',
      reason: 'DryRun',
    });
    // Dry-run: nothing was applied on dev, so nothing waits to be removed there.
    expect(moved.service.movingFrom).toBeUndefined();
  });
});

describe('ServiceStatusRefresher on a fleet', () => {
  it('marks a service ClusterUnreachable while its cluster does not answer, leaves other clusters alone, and makes it Available when it answers again', async () => {
    // Apply mode without appliers: services are recorded in apply mode and read on their cluster, nothing is applied.
    const { store, services } = await manager('apply');
    const onDev = await services.create(
      { request: { ...devSummariser, name: 'dev-sum', pool: 'spot-l4' } },
      USER,
    );
    const onProd = await services.create(
      { request: { ...summariserOnDedicatedL4, pool: undefined } },
      USER,
    );
    for (const { service } of [onDev, onProd]) {
      expect(service.mode).toBe('apply');
      await store.updateServiceStatus({
        id: service.id,
        status: 'starting',
        reason: 'Applied',
        actor: USER,
      });
    }
    let devAnswers = false;
    const deployment = {
      exists: true,
      available: true,
      replicas: 1,
      readyReplicas: 1,
      availableReplicas: 1,
      updatedReplicas: 1,
      conditions: [],
    };
    const reader = (cluster: string, answers: () => boolean) =>
      ({
        cluster,
        read: async () => {
          if (!answers()) {
            throw new Error('connect ECONNREFUSED 127.0.0.1:17201');
          }
          return { cluster, observedAt: new Date().toISOString(), deployment };
        },
      } as unknown as ClusterStatusReader);
    const refresher = new ServiceStatusRefresher({
      store,
      statusReaders: new Map([
        ['dev', reader('dev', () => devAnswers)],
        ['prod-eu', reader('prod-eu', () => true)],
      ]),
      logger: mockServices.logger.mock(),
    });

    const devDown = await refresher.refreshStatus(onDev.service.id);
    expect(devDown.service).toMatchObject({
      status: 'starting',
      reason: 'ClusterUnreachable',
    });
    expect(devDown.service.statusReason).toContain(
      'Cluster dev cannot be reached',
    );
    const prodUp = await refresher.refreshStatus(onProd.service.id);
    expect(prodUp.service).toMatchObject({
      status: 'ready',
      reason: 'Available',
    });

    devAnswers = true;
    const devBack = await refresher.refreshStatus(onDev.service.id);
    expect(devBack.service).toMatchObject({
      status: 'ready',
      reason: 'Available',
    });
  });
});
