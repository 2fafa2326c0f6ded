import { mockServices, startTestBackend } from '@backstage/backend-test-utils';
import { ConfigReader } from '@backstage/config';
import authPlugin from '@backstage/plugin-auth-backend';
import { catalogServiceMock } from '@backstage/plugin-catalog-node/testUtils';
import { databaseClosedOnShutdown } from '@gpu-platform/backstage-plugin-gpu-backend/testUtils';
import { AddressInfo } from 'node:net';
import {
  demoApproverAuthModule,
  demoApproverSignIn,
} from './demoApproverProvider';

const alice = {
  apiVersion: 'backstage.io/v1alpha1',
  kind: 'User',
  metadata: { name: 'alice', namespace: 'default' },
  spec: { memberOf: ['platform-team'] },
  relations: [{ type: 'memberOf', targetRef: 'group:default/platform-team' }],
};

/** GET /api/auth/demoApprover/refresh as the frontend sends it. */
async function refresh(server: { address(): unknown }) {
  const { port } = server.address() as AddressInfo;
  const res = await fetch(
    `http://localhost:${port}/api/auth/demoApprover/refresh?env=development`,
    { headers: { 'x-requested-with': 'XMLHttpRequest' } },
  );
  return { status: res.status, body: await res.json().catch(() => undefined) };
}

function decodeSubject(token: string) {
  const payload = JSON.parse(
    Buffer.from(token.split('.')[1], 'base64url').toString('utf8'),
  );
  return { sub: payload.sub, ent: payload.ent };
}

describe('the demoApprover sign-in provider', () => {
  it('signs in as the configured catalog user, with the groups the catalog gives her', async () => {
    const { server } = await startTestBackend({
      features: [
        databaseClosedOnShutdown,
        authPlugin,
        demoApproverAuthModule,
        catalogServiceMock.factory({ entities: [alice] }),
        mockServices.rootConfig.factory({
          data: {
            app: { baseUrl: 'http://localhost:3000' },
            auth: {
              providers: {
                demoApprover: { userEntityRef: 'user:default/alice' },
              },
            },
          },
        }),
      ],
    });
    const previous = process.env.NODE_ENV;
    process.env.NODE_ENV = 'development';
    try {
      const res = await refresh(server);
      expect(res.status).toBe(200);
      expect(res.body.backstageIdentity.identity).toMatchObject({
        userEntityRef: 'user:default/alice',
        ownershipEntityRefs: expect.arrayContaining([
          'user:default/alice',
          'group:default/platform-team',
        ]),
      });
      expect(decodeSubject(res.body.backstageIdentity.token).sub).toBe(
        'user:default/alice',
      );
    } finally {
      process.env.NODE_ENV = previous;
    }
  });

  it('is not served where auth.providers.demoApprover is not configured', async () => {
    const { server } = await startTestBackend({
      features: [
        databaseClosedOnShutdown,
        authPlugin,
        demoApproverAuthModule,
        catalogServiceMock.factory({ entities: [alice] }),
        mockServices.rootConfig.factory({
          data: { app: { baseUrl: 'http://localhost:3000' } },
        }),
      ],
    });
    expect((await refresh(server)).status).toBe(404);
  });

  it('refuses outside development unless dangerouslyAllowOutsideDevelopment is set', async () => {
    const signIn = jest.fn(async () => ({ token: 'a-token' }));
    const ctx = { signInWithCatalogUser: signIn } as any;
    const config = new ConfigReader({ userEntityRef: 'user:default/alice' });
    await expect(
      demoApproverSignIn(config, 'production')({} as any, ctx),
    ).rejects.toMatchObject({
      name: 'NotAllowedError',
      message: expect.stringContaining('local demo only'),
    });
    expect(signIn).not.toHaveBeenCalled();

    await demoApproverSignIn(config, 'development')({} as any, ctx);
    await demoApproverSignIn(
      new ConfigReader({
        userEntityRef: 'user:default/alice',
        dangerouslyAllowOutsideDevelopment: true,
      }),
      'production',
    )({} as any, ctx);
    expect(signIn.mock.calls).toEqual([
      [{ entityRef: 'user:default/alice' }],
      [{ entityRef: 'user:default/alice' }],
    ]);
  });
});
