import { mockServices, startTestBackend } from '@backstage/backend-test-utils';
import { demoPlatformConfig } from '@gpu-platform/backstage-plugin-gpu-common';
import request from 'supertest';
import { summariserRequest } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import { gpuPlugin } from './plugin';
import { databaseClosedOnShutdown } from './testUtils/databaseClosedOnShutdown';

// Each test boots a backend; on a busy 2-core machine that passes the default 5 s.
jest.setTimeout(30_000);

describe('gpu backend plugin', () => {
  async function start() {
    const { server } = await startTestBackend({
      features: [
        databaseClosedOnShutdown,
        gpuPlugin,
        mockServices.rootConfig.factory({ data: { gpu: demoPlatformConfig } }),
      ],
    });
    return server;
  }

  it('answers /health without credentials', async () => {
    const server = await start();
    const res = await request(server)
      .get('/api/gpu/health')
      .set('Authorization', '');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('serves the configured platform to signed-in users', async () => {
    const server = await start();
    const res = await request(server).get('/api/gpu/platform').expect(200);
    expect(
      res.body.platform.pools.map((p: { name: string }) => p.name),
    ).toEqual(demoPlatformConfig.pools.map(p => p.name));
    expect(res.body.clusters).toEqual([]);
  });

  it('rejects unauthenticated platform requests', async () => {
    const server = await start();
    const res = await request(server)
      .get('/api/gpu/platform')
      .set('Authorization', 'Bearer mock-none-token');
    expect(res.status).toBe(401);
  });

  it('refuses to start with an invalid gpu config, naming the key', async () => {
    await expect(
      startTestBackend({
        features: [
          databaseClosedOnShutdown,
          gpuPlugin,
          mockServices.rootConfig.factory({
            data: {
              gpu: {
                ...demoPlatformConfig,
                pools: [{ ...demoPlatformConfig.pools[0], gpuModel: 'Z9000' }],
              },
            },
          }),
        ],
      }),
    ).rejects.toThrow(/gpu\.pools\[0\]\.gpuModel/);
  });

  it('refuses to start with an invalid Karpenter or alert setting, naming the key', async () => {
    await expect(
      startTestBackend({
        features: [
          databaseClosedOnShutdown,
          gpuPlugin,
          mockServices.rootConfig.factory({
            data: {
              gpu: {
                ...demoPlatformConfig,
                karpenter: { consolidateAfter: 'soon' },
                alerts: { scope: 'everywhere' },
              },
            },
          }),
        ],
      }),
    ).rejects.toThrow(
      /2 problems: gpu\.karpenter\.consolidateAfter: .*; gpu\.alerts\.scope/,
    );
  });

  it('refuses to start with an unknown part in gpu.reconcile.deliver, naming the known ones', async () => {
    await expect(
      startTestBackend({
        features: [
          databaseClosedOnShutdown,
          gpuPlugin,
          mockServices.rootConfig.factory({
            data: {
              gpu: {
                ...demoPlatformConfig,
                reconcile: { deliver: ['kueue', 'configMaps'] },
              },
            },
          }),
        ],
      }),
    ).rejects.toThrow(
      /gpu\.reconcile\.deliver: unknown part configMaps; the parts are gpuOperator, kueue, nodePools, alerts, nodeLabels/,
    );
  });

  const summariser = { ...summariserRequest, expectedTokensPerSecond: 600 };

  it('quotes a request against the team quota seeded from config', async () => {
    const server = await start();
    const res = await request(server)
      .post('/api/gpu/quote')
      .send(summariser)
      .expect(200);
    expect(res.body.recommended.slice).toMatchObject({ tier: 'dedicated' });
    const l4 = res.body.options.find(
      (o: any) =>
        o.slice.pool === 'l4-ondemand' && o.slice.gpusPerReplica === 1,
    );
    expect(l4.quota).toMatchObject({
      nominal: 4,
      used: 0,
      requested: 1,
      remaining: 3,
    });
    expect(l4.verdict).toBe('allowed');
  });

  it('answers a bad quote request with 400 naming the field', async () => {
    const server = await start();
    const res = await request(server)
      .post('/api/gpu/quote')
      .send({ ...summariser, model: 'gpt-17' })
      .expect(400);
    expect(res.body.error.name).toBe('InputError');
    expect(res.body.error.message).toMatch(/gpt-17/);
  });
});
