/*
 * Drift the status refresh repairs in apply mode: any object of the stored manifests missing from the cluster, not
 * only the Deployment.
 */
import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { ConfigReader } from '@backstage/config';
import {
  demoPlatformConfig,
  readPlatformConfig,
  ServiceClusterStatus,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { ClusterStatusReader, ServiceObjects } from '../cluster';
import { DatabaseGpuStore, ServiceRecord } from '../database';
import { seedUsageServices } from '../usage/__testUtils__/seedUsageServices';
import { driftOf, ServiceStatusRefresher } from './ServiceStatusRefresher';

const databases = TestDatabases.create({ ids: ['SQLITE_3'] });
const platform = readPlatformConfig(
  new ConfigReader({ gpu: demoPlatformConfig }),
);

const MANIFESTS = [
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'summariser', namespace: 'ml-serving' },
  },
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'summariser', namespace: 'ml-serving' },
  },
  {
    apiVersion: 'keda.sh/v1alpha1',
    kind: 'ScaledObject',
    metadata: { name: 'summariser', namespace: 'ml-serving' },
  },
];

const available: ServiceClusterStatus['deployment'] = {
  name: 'summariser',
  namespace: 'ml-serving',
  exists: true,
  replicas: 1,
  currentReplicas: 1,
  updatedReplicas: 1,
  readyReplicas: 1,
  availableReplicas: 1,
  available: true,
  conditions: [],
};

describe('ServiceStatusRefresher drift repair', () => {
  it('reads every object of the stored manifests, and applies again a ready service whose ScaledObject is missing', async () => {
    const knex = await databases.init('SQLITE_3');
    const store = await DatabaseGpuStore.create({
      database: mockServices.database({ knex }),
      platform,
    });
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
          heldAt: new Date(Date.now() - 3_600_000).toISOString(),
        },
      ],
    });
    const id = ids.summariser;
    await knex('services')
      .where({ id })
      .update({
        status: 'ready',
        manifests: JSON.stringify(MANIFESTS),
        updated_at: new Date(),
      });
    const reads: ServiceObjects[] = [];
    let answer: ServiceClusterStatus = {
      cluster: 'gpu-eu',
      observedAt: new Date().toISOString(),
      deployment: available,
    };
    const reader = {
      cluster: 'gpu-eu',
      read: async (objects: ServiceObjects) => {
        reads.push(objects);
        return answer;
      },
    } as unknown as ClusterStatusReader;
    const repairs: string[] = [];
    const refresher = new ServiceStatusRefresher({
      store,
      statusReader: reader,
      logger: mockServices.logger.mock(),
      repair: async (service: ServiceRecord, why: string) => {
        repairs.push(why);
        return service;
      },
    });

    await refresher.refreshStatus(id);
    expect(reads[0]).toEqual({
      serviceId: id,
      namespace: 'ml-serving',
      deployment: 'summariser',
      others: [
        {
          apiVersion: 'v1',
          kind: 'Service',
          namespace: 'ml-serving',
          name: 'summariser',
        },
        {
          apiVersion: 'keda.sh/v1alpha1',
          kind: 'ScaledObject',
          namespace: 'ml-serving',
          name: 'summariser',
        },
      ],
    });
    expect(repairs).toEqual([]);

    answer = {
      ...answer,
      missing: [
        {
          apiVersion: 'keda.sh/v1alpha1',
          kind: 'ScaledObject',
          namespace: 'ml-serving',
          name: 'summariser',
        },
      ],
    };
    await refresher.refreshStatus(id);
    expect(repairs).toEqual([
      'its ScaledObject ml-serving/summariser is missing from the cluster',
    ]);
    await knex.destroy();
  });

  it('names every missing object, after a missing Deployment', () => {
    const service = { request: { replicas: 1 } } as unknown as ServiceRecord;
    const missing = [
      { apiVersion: 'v1', kind: 'Service', namespace: 'ml', name: 'a' },
      {
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        namespace: 'ml',
        name: 'a',
      },
    ];
    expect(
      driftOf(service, {
        cluster: 'gpu-eu',
        observedAt: '2026-12-05T00:00:00.000Z',
        deployment: available,
        missing,
      }),
    ).toBe(
      'its Service ml/a, PodDisruptionBudget ml/a are missing from the cluster',
    );
    expect(
      driftOf(service, {
        cluster: 'gpu-eu',
        observedAt: '2026-12-05T00:00:00.000Z',
        deployment: { ...available, exists: false },
        missing,
      }),
    ).toBe('its Deployment ml-serving/summariser is missing from the cluster');
  });
});
