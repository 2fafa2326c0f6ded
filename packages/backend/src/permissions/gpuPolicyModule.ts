import {
  coreServices,
  createBackendModule,
} from '@backstage/backend-plugin-api';
import { policyExtensionPoint } from '@backstage/plugin-permission-node/alpha';
import { readPlatformGroups } from '@gpu-platform/backstage-plugin-gpu-common';
import { GpuPlatformPolicy } from '@gpu-platform/backstage-plugin-gpu-node';

/**
 * Installs the gpu plugin's `GpuPlatformPolicy` as the permission backend's policy, with the platform groups of
 * `gpu.permissions.platformGroups`.
 */
export const gpuPolicyModule = createBackendModule({
  pluginId: 'permission',
  moduleId: 'gpu-platform-policy',
  register(env) {
    env.registerInit({
      deps: { config: coreServices.rootConfig, policy: policyExtensionPoint },
      async init({ config, policy }) {
        policy.setPolicy(
          new GpuPlatformPolicy({ platformGroups: readPlatformGroups(config) }),
        );
      },
    });
  },
});
