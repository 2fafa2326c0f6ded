import {
  BackstageCredentials,
  BackstageUserPrincipal,
  coreServices,
  createBackendModule,
  createServiceFactory,
} from '@backstage/backend-plugin-api';
import { mockCredentials, mockServices } from '@backstage/backend-test-utils';
import { GpuPlatformPolicy } from '@gpu-platform/backstage-plugin-gpu-node';
import { policyExtensionPoint } from '@backstage/plugin-permission-node/alpha';
import permissionBackend from '@backstage/plugin-permission-backend';

/** The demo organisation (examples/org.yaml): who belongs to which team. */
export const DEMO_USERS = {
  /** Platform team: approves, changes quotas, sees everything. */
  alice: ['platform-team'],
  /** ML platform team member. */
  bob: ['ml-platform'],
  /** Search team member. */
  carol: ['search'],
  /** Member of no team. */
  dave: [],
} satisfies Record<string, string[]>;

export type DemoUser = keyof typeof DEMO_USERS;

/** The user entity ref of a demo user. */
export const userRef = (user: DemoUser | string) => `user:default/${user}`;

/** An `Authorization` header that the test backend's mock auth reads as this user. */
export const asUser = (user: DemoUser | string) =>
  mockCredentials.user.header(userRef(user));

/**
 * userInfo for the demo users by their token (ownership claims: the user and their groups), so the permission
 * backend sees each caller's own teams; a user not in the map belongs to the given groups (default none).
 */
export function demoUserInfo(users: Record<string, string[]> = DEMO_USERS) {
  return createServiceFactory({
    service: coreServices.userInfo,
    deps: {},
    factory: () => ({
      async getUserInfo(credentials: BackstageCredentials) {
        const { userEntityRef } = (
          credentials as BackstageCredentials<BackstageUserPrincipal>
        ).principal;
        const name = userEntityRef.replace(/^user:default\//, '');
        const groups = users[name] ?? [];
        return {
          userEntityRef,
          ownershipEntityRefs: [
            userEntityRef,
            ...groups.map(g => `group:default/${g}`),
          ],
        };
      },
    }),
  });
}

const MOCK_SERVICE_TOKEN_PREFIX = 'mock-service-token:';

/**
 * The mock httpAuth, except that a token a plugin obtained on a user's behalf authenticates as that user with the
 * plugin as actor, as Backstage's real tokens do (the mock drops the actor). The permission backend needs it: it
 * refuses conditional queries from users calling it directly, and tells them apart by the actor.
 */
function httpAuthKeepingOnBehalfOfActor() {
  return createServiceFactory({
    service: coreServices.httpAuth,
    deps: { plugin: coreServices.pluginMetadata },
    factory({ plugin }) {
      const base = mockServices.httpAuth({ pluginId: plugin.getId() });
      return {
        issueUserCookie: base.issueUserCookie.bind(base),
        async credentials(req: any, options?: any) {
          const credentials: BackstageCredentials = await base.credentials(
            req,
            options,
          );
          const token = /^Bearer[ ]+(\S+)$/i.exec(
            req.headers.authorization ?? '',
          )?.[1];
          if (
            token?.startsWith(MOCK_SERVICE_TOKEN_PREFIX) &&
            (credentials.principal as { type: string }).type === 'user'
          ) {
            const { sub } = JSON.parse(
              token.slice(MOCK_SERVICE_TOKEN_PREFIX.length),
            );
            return mockCredentials.user(
              (credentials.principal as BackstageUserPrincipal).userEntityRef,
              { actor: { subject: sub ?? 'plugin' } },
            );
          }
          return credentials;
        },
      } as typeof base;
    },
  });
}

/**
 * The permission backend with the policy the demo app installs (GpuPlatformPolicy, platform team
 * `group:default/platform-team`): tests that decide permissions the way a deployed app does.
 */
export function realPermissionPolicy() {
  return [
    httpAuthKeepingOnBehalfOfActor(),
    permissionBackend,
    createBackendModule({
      pluginId: 'permission',
      moduleId: 'gpu-test-policy',
      register(env) {
        env.registerInit({
          deps: { policy: policyExtensionPoint },
          async init({ policy }) {
            policy.setPolicy(
              new GpuPlatformPolicy({
                platformGroups: ['group:default/platform-team'],
              }),
            );
          },
        });
      },
    }),
  ];
}
