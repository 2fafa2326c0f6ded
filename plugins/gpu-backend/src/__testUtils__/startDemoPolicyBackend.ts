import { mockServices, startTestBackend } from '@backstage/backend-test-utils';
import { demoPlatformConfig } from '@gpu-platform/backstage-plugin-gpu-common';
import { gpuPlugin } from '../plugin';
import { DEMO_USERS, demoUserInfo, realPermissionPolicy } from './demoUsers';
import { databaseClosedOnShutdown } from '../testUtils/databaseClosedOnShutdown';

/**
 * The gpu plugin on the demo platform behind the app's real permission policy, its HTTP server returned; requests
 * without an Authorization header come from a member of ml-platform (`asUser` signs in others). `gpu` keys given
 * replace the demo platform's.
 */
export async function startDemoPolicyBackend(gpu: object = {}) {
  const { server } = await startTestBackend({
    features: [
      databaseClosedOnShutdown,
      gpuPlugin,
      mockServices.rootConfig.factory({
        data: {
          gpu: { ...demoPlatformConfig, ...gpu },
          permission: { enabled: true },
        },
      }),
      demoUserInfo({ ...DEMO_USERS, mock: ['ml-platform'] }),
      ...realPermissionPolicy(),
    ],
  });
  return server;
}
