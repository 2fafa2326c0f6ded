import {
  demoPlatformConfig,
  DYNAMIC_MIG_RESOURCE,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { summariserRequest } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import request from 'supertest';
import { asUser } from './__testUtils__/demoUsers';
import { startDemoPolicyBackend } from './__testUtils__/startDemoPolicyBackend';

jest.setTimeout(90_000);

/** The demo platform with its A100-80GB MIG pool carved on demand through DRA (8 GPUs of 98 SMs). */
const pools = demoPlatformConfig.pools.map(pool =>
  pool.name === 'a100-mig'
    ? {
        ...pool,
        allocation: 'dra' as const,
        sharing: {
          type: 'mig' as const,
          partitioning: 'dynamic' as const,
          layout: { '1g.10gb': 7, '2g.20gb': 3, '3g.40gb': 2 },
        },
      }
    : pool,
);
const SMS: Record<string, number> = {
  '1g.10gb': 14,
  '2g.20gb': 28,
  '3g.40gb': 42,
};

const onDynamicMig = {
  ...summariserRequest,
  name: 'carved',
  environment: 'dev',
  tier: 'mig' as const,
  pool: 'a100-mig',
};

interface Option {
  replicas: number;
  slice: {
    pool: string;
    migProfile?: string;
    gpuUnits: number;
    gpuShare: number;
    resourceName: string;
    allocation: { backend: string; dynamicMig?: { message: string } };
  };
}

describe('a dynamic MIG pool, over HTTP', () => {
  it('quotes, admits and holds each slice its SMs’ share of the GPU, says the profiles are carved on demand, and renders a claim of the dynamic class', async () => {
    const http = request(await startDemoPolicyBackend({ pools }));
    const quote = await http
      .post('/api/gpu/quote')
      .set('Authorization', asUser('bob'))
      .send(onDynamicMig)
      .expect(200);
    const option = quote.body.recommended as Option;
    const profile = option.slice.migProfile!;
    expect(Object.keys(SMS)).toContain(profile);
    expect(option.slice).toMatchObject({
      pool: 'a100-mig',
      gpuUnits: (SMS[profile] * 5040) / 98,
      gpuShare: SMS[profile] / 98,
      resourceName: DYNAMIC_MIG_RESOURCE,
    });
    expect(option.slice.allocation.dynamicMig?.message).toMatch(
      /^dynamic MIG: the NVIDIA DRA driver carves 1g\.10gb \(14 SMs\), 2g\.20gb \(28 SMs\), 3g\.40gb \(42 SMs\) on demand on each A100-80GB/,
    );

    const preview = await http
      .post('/api/gpu/services')
      .set('Authorization', asUser('bob'))
      .send({ request: onDynamicMig, dryRun: true })
      .expect(200);
    const claim = (
      preview.body.manifests as Array<{ kind: string; spec: any }>
    ).find(m => m.kind === 'ResourceClaimTemplate')!;
    expect(claim.spec.spec.devices.requests[0].exactly).toMatchObject({
      deviceClassName: 'mig-dynamic.gpu.backstage.io',
      count: 1,
      selectors: [
        {
          cel: {
            expression: expect.stringContaining(
              `.profile == '${profile}' && `,
            ),
          },
        },
      ],
    });

    // The ledger holds what the quote weighed: the slice's SMs out of 98.
    await http
      .post('/api/gpu/services')
      .set('Authorization', asUser('bob'))
      .send({ request: onDynamicMig })
      .expect(201);
    const quota = await http
      .get('/api/gpu/teams/ml-platform/quota')
      .set('Authorization', asUser('bob'))
      .expect(200);
    expect(quota.body.reservedGpuEquivalents['a100-mig']).toBeCloseTo(
      SMS[profile] / 98,
      9,
    );

    // A team quota of exactly that many SMs has no room for a second slice of them: the ledger, like Kueue, refuses.
    await http
      .put('/api/gpu/teams/ml-platform/quota')
      .set('Authorization', asUser('alice'))
      .send({
        pools: { ...quota.body.pools, 'a100-mig': SMS[profile] / 98 },
        monthlyBudget: '60000',
      })
      .expect(200);
    const second = await http
      .post('/api/gpu/quote')
      .set('Authorization', asUser('bob'))
      .send({ ...onDynamicMig, name: 'carved-too' })
      .expect(200);
    const secondOption = [
      ...second.body.options,
      ...(second.body.unavailable ?? []),
    ].find((o: Option) => o.slice?.migProfile === profile);
    expect(secondOption).toBeDefined();
    expect(secondOption.quota).toMatchObject({
      pool: 'a100-mig',
      fits: false,
      remaining: expect.closeTo(-SMS[profile] / 98, 9),
    });
  });
});
