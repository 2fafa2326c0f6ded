import { BackendFeature } from '@backstage/backend-plugin-api';
import { randomBytes } from 'node:crypto';
import { mockServices, startTestBackend } from '@backstage/backend-test-utils';
import { demoPlatformConfig } from '@gpu-platform/backstage-plugin-gpu-common';
import type { SetupServer } from 'msw/node';
import request from 'supertest';
import { fakeKubernetesApi } from '../cluster/__testUtils__/fakeKubernetesApi';
import { gpuPlugin } from '../plugin';
import { userInGroups } from './userInGroups';
import { databaseClosedOnShutdown } from '../testUtils/databaseClosedOnShutdown';

/**
 * This test file's run, in the fake clusters' host names: jest runs the next file in the same process, where a
 * backend of this file may still finish a loop's pass after its file ended (its stop does not wait for requests in
 * flight), and that file's fakes count from 1 again.
 */
const FILE_RUN = randomBytes(4).toString('hex');

/**
 * API server URL of the fake cluster `gpu-eu` of the n-th backend started: each backend has an API server of its own,
 * so the loops of a backend started by an earlier test of the file (they run until the file ends), or by an earlier
 * file in the same jest worker, never act on a later test's cluster.
 */
export function fakeClusterUrl(n: number): string {
  return `https://k8s-${n}-${FILE_RUN}.test:6443`;
}

let started = 0;

export interface ApplyClusterBackendOptions {
  /** Groups the caller is a member of; the mock user's own memberships when absent. */
  groups?: string[];
  /** More `gpu` config on top of the demo platform and its one cluster. */
  gpu?: Record<string, unknown>;
  /** More features, e.g. a factory replacing a core service. */
  features?: BackendFeature[];
}

/**
 * A test backend with the demo platform and one cluster, `gpu-eu`, in `apply` mode, served by a fresh fake Kubernetes
 * API on the given msw server.
 */
export async function startApplyClusterBackend(
  server: SetupServer,
  { groups, gpu = {}, features = [] }: ApplyClusterBackendOptions = {},
) {
  const url = fakeClusterUrl(++started);
  const api = fakeKubernetesApi(url);
  server.use(...api.handlers);
  const { server: http } = await startTestBackend({
    features: [
      databaseClosedOnShutdown,
      gpuPlugin,
      ...features,
      mockServices.rootConfig.factory({
        data: {
          gpu: {
            ...demoPlatformConfig,
            clusters: [{ name: 'gpu-eu', mode: 'apply' }],
            ...gpu,
            // The fake API serves no watches.
            apply: { watch: false, ...(gpu.apply as object | undefined) },
          },
          kubernetes: {
            clusterLocatorMethods: [
              {
                type: 'config',
                clusters: [
                  {
                    name: 'gpu-eu',
                    url,
                    authProvider: 'serviceAccount',
                    serviceAccountToken: 'sa-token',
                  },
                ],
              },
            ],
          },
        },
      }),
      ...(groups ? [userInGroups(groups)] : []),
    ],
  });
  return { api, http: request(http) };
}
