import { mockServices, startTestBackend } from '@backstage/backend-test-utils';
import { demoPlatformConfig } from '@gpu-platform/backstage-plugin-gpu-common';
import request from 'supertest';
import { gpuPlugin } from './plugin';

describe('rate limiting of /api/gpu', () => {
  it("answers 429 past backend.rateLimit.plugin.gpu's limit, as Backstage's http router applies it", async () => {
    const { server } = await startTestBackend({
      features: [
        gpuPlugin,
        mockServices.rootConfig.factory({
          data: {
            gpu: demoPlatformConfig,
            backend: {
              rateLimit: {
                global: false,
                plugin: {
                  gpu: {
                    window: { minutes: 1 },
                    incomingRequestLimit: 5,
                    // Loopback is exempt by default; the test client is on loopback.
                    ipAllowList: [],
                  },
                },
              },
            },
          },
        }),
      ],
    });
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      statuses.push((await request(server).get('/api/gpu/platform')).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    const limited = await request(server).get('/api/gpu/services');
    expect(limited.status).toBe(429);
    expect(limited.body.error.message).toMatch(/Too many requests/);
  });
});
