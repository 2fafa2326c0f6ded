import { demoPlatformConfig } from '@gpu-platform/backstage-plugin-gpu-common';

/**
 * The demo platform's configuration on two clusters: the on-demand L4s on `prod-eu`, every other pool on `dev`;
 * production may only use `prod-*`. The clusters themselves (their modes) are the test's.
 */
export const twoClusterPlatformConfig = {
  ...demoPlatformConfig,
  pools: demoPlatformConfig.pools!.map(p => ({
    ...p,
    cluster: p.name === 'l4-ondemand' ? 'prod-eu' : 'dev',
  })),
  environments: [
    { name: 'dev' },
    { name: 'staging' },
    { name: 'production', clusters: ['prod-*'] },
  ],
};
