import { mockServices, startTestBackend } from '@backstage/backend-test-utils';
import { demoPlatformConfig } from '@internal/backstage-plugin-gpu-common';
import request from 'supertest';
import { gpuPlugin } from './plugin';

describe('gpu backend plugin', () => {
  async function start() {
    const { server } = await startTestBackend({
      features: [
        gpuPlugin,
        mockServices.rootConfig.factory({ data: { gpu: demoPlatformConfig } }),
      ],
    });
    return server;
  }

  it('answers /health without credentials', async () => {
    const server = await start();
    await request(server)
      .get('/api/gpu/health')
      .set('Authorization', '')
      .expect(200, { status: 'ok' });
  });

  it('serves the configured platform to signed-in users', async () => {
    const server = await start();
    const res = await request(server).get('/api/gpu/platform').expect(200);
    expect(res.body.platform.pools.map((p: { name: string }) => p.name)).toEqual(
      demoPlatformConfig.pools.map(p => p.name),
    );
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
});
