import { summariserRequest } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import request from 'supertest';
import { asUser } from './__testUtils__/demoUsers';
import { startDemoPolicyBackend } from './__testUtils__/startDemoPolicyBackend';

jest.setTimeout(60_000);

describe('GET /overview', () => {
  it("gives each service's catalog entity, for the leaderboards' links, and none for a service without one", async () => {
    const server = await startDemoPolicyBackend();
    await request(server)
      .post('/api/gpu/services')
      .send({
        request: summariserRequest,
        entityRef: 'component:default/summariser',
      })
      .expect(201);
    await request(server)
      .post('/api/gpu/services')
      .send({ request: { ...summariserRequest, name: 'unlisted' } })
      .expect(201);

    const overview = await request(server)
      .get('/api/gpu/overview?window=1h')
      .set('Authorization', asUser('alice'))
      .expect(200);
    const byName = new Map(
      overview.body.leaderboards.cost.items.map((s: any) => [s.name, s]),
    );
    expect(byName.get('summariser')).toMatchObject({
      entityRef: 'component:default/summariser',
    });
    expect(byName.get('unlisted')).toBeDefined();
    expect(byName.get('unlisted')).not.toHaveProperty('entityRef');
  });
});
