import { mockServices, startTestBackend } from '@backstage/backend-test-utils';
import {
  devSummariser,
  summariserOnDedicatedL4,
} from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import request from 'supertest';
import { gpuPlugin } from './plugin';
import { asUser, demoUserInfo } from './__testUtils__/demoUsers';
import { twoClusterPlatformConfig } from './__testUtils__/twoClusterPlatform';
import { databaseClosedOnShutdown } from './testUtils/databaseClosedOnShutdown';

jest.setTimeout(30_000);

/** The demo platform on two dry-run clusters: the on-demand L4s on prod-eu, every other pool on dev. */
async function start() {
  const { server } = await startTestBackend({
    features: [
      databaseClosedOnShutdown,
      gpuPlugin,
      mockServices.rootConfig.factory({
        data: {
          gpu: {
            ...twoClusterPlatformConfig,
            clusters: [
              { name: 'dev', mode: 'dry-run' },
              { name: 'prod-eu', mode: 'dry-run' },
            ],
          },
        },
      }),
      demoUserInfo({ mock: ['ml-platform'], alice: ['platform-team'] }),
    ],
  });
  return request(server);
}

describe('GET /overview?cluster=', () => {
  it('narrows the overview to one cluster’s services and pools, says which, and refuses a cluster that is not configured (400)', async () => {
    const http = await start();
    const prod = await http
      .post('/api/gpu/services')
      .send({ request: { ...summariserOnDedicatedL4, pool: undefined } })
      .expect(201);
    expect(prod.body.cluster).toBe('prod-eu');
    const dev = await http
      .post('/api/gpu/services')
      .send({ request: { ...devSummariser, name: 'dev-sum', pool: 'h100' } })
      .expect(201);
    expect(dev.body.cluster).toBe('dev');

    const overview = (cluster?: string) =>
      http
        .get(`/api/gpu/overview${cluster ? `?cluster=${cluster}` : ''}`)
        .set('Authorization', asUser('alice'));
    const ids = (body: {
      serviceCount: number;
      leaderboards: { cost: { items: Array<{ serviceId: string }> } };
    }) => {
      expect(body.leaderboards.cost.items).toHaveLength(body.serviceCount);
      return body.leaderboards.cost.items.map(s => s.serviceId).sort();
    };

    const all = (await overview().expect(200)).body;
    expect(all.cluster).toBeUndefined();
    expect(ids(all)).toEqual([prod.body.id, dev.body.id].sort());

    const onProd = (await overview('prod-eu').expect(200)).body;
    expect(onProd.cluster).toBe('prod-eu');
    expect(ids(onProd)).toEqual([prod.body.id]);
    expect(onProd.pools.map((p: { pool: string }) => p.pool)).toEqual([
      'l4-ondemand',
    ]);
    // Teams with quota on prod-eu's pool (both demo teams), their figures counting prod-eu only.
    expect(onProd.teams.map((t: { team: string }) => t.team)).toEqual([
      'ml-platform',
      'search',
    ]);

    const onDev = (await overview('dev').expect(200)).body;
    expect(ids(onDev)).toEqual([dev.body.id]);
    expect(onDev.pools.map((p: { pool: string }) => p.pool)).not.toContain(
      'l4-ondemand',
    );
    expect(onDev.projectedMonthMicros + onProd.projectedMonthMicros).toBe(
      all.projectedMonthMicros,
    );

    const unknown = await overview('prod-us');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({
      name: 'InputError',
      message:
        "Unknown cluster 'prod-us': the configured clusters are dev, prod-eu",
    });
  });
});
