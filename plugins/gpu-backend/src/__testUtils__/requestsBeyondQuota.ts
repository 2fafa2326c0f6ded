import { summariserRequest } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import request from 'supertest';
import { asUser } from './demoUsers';

/** A backend the tests drive with supertest (e.g. one of startDemoPolicyBackend). */
type Server = Parameters<typeof request>[0];

/** Alice (platform team) lowers ml-platform's quota on l4-ondemand to 2 GPUs, with a budget of $60,000. */
export async function lowerMlPlatformL4Quota(server: Server) {
  await setMlPlatformL4Quota(server, 2);
}

/** Alice (platform team) sets ml-platform's quota on l4-ondemand to `gpus` GPUs, with a budget of $60,000. */
export async function setMlPlatformL4Quota(server: Server, gpus: number) {
  const current = await request(server)
    .get('/api/gpu/teams/ml-platform/quota')
    .expect(200);
  await request(server)
    .put('/api/gpu/teams/ml-platform/quota')
    .set('Authorization', asUser('alice'))
    .send({
      pools: { ...current.body.pools, 'l4-ondemand': gpus },
      monthlyBudget: '60000',
    })
    .expect(200);
}

/** ml-platform asks for a dedicated L4 service of 3 replicas, beyond that quota of 2: the created service's body. */
export async function requestBeyondL4Quota(server: Server, name: string) {
  const created = await request(server)
    .post('/api/gpu/services')
    .send({
      request: {
        ...summariserRequest,
        name,
        tier: 'dedicated',
        pool: 'l4-ondemand',
        replicas: 3,
      },
    })
    .expect(201);
  return created.body;
}
