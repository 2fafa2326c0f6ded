import { BackendFeature } from '@backstage/backend-plugin-api';
import { mockServices, startTestBackend } from '@backstage/backend-test-utils';
import { demoPlatformConfig } from '@internal/backstage-plugin-gpu-common';
import request from 'supertest';
import { gpuPlugin } from '../plugin';
import { userInGroups } from './userInGroups';

/** A team of `gpu.teams` as app-config writes it. */
export type TeamConfig = {
  name: string;
  namespaces: string[];
  gpuQuota: Record<string, number>;
  monthlyBudget: string;
};

/** Name of the local control plane in `gpu.clusters` of the test backends. */
export const LOCAL_CLUSTER = 'local';

/**
 * A test backend with the demo platform (the pools the local cluster's kwok nodes were made from) and the given teams,
 * applying to the local control plane through its kubeconfig; the caller is a member of `groups`.
 *
 * Its team ClusterQueues join a Kueue cohort of their own (`suite-<first team>`, unless `gpu.kueue` says otherwise):
 * the suites share one cluster, and ClusterQueues another suite left in a shared cohort would lend their unused quota,
 * so what Kueue admits would depend on which suites ran before.
 */
export async function startLocalClusterBackend(options: {
  kubeconfig: string;
  teams: TeamConfig[];
  groups: string[];
  gpu?: Record<string, unknown>;
  features?: BackendFeature[];
}) {
  const backend = await startTestBackend({
    features: [
      gpuPlugin,
      ...(options.features ?? []),
      mockServices.rootConfig.factory({
        data: {
          gpu: {
            ...demoPlatformConfig,
            kueue: {
              ...demoPlatformConfig.kueue,
              cohort: `suite-${options.teams[0]?.name ?? 'none'}`,
            },
            teams: options.teams,
            clusters: [
              {
                name: LOCAL_CLUSTER,
                mode: 'apply',
                kubeconfig: options.kubeconfig,
              },
            ],
            ...options.gpu,
          },
        },
      }),
      userInGroups(options.groups),
    ],
  });
  return { backend, http: request(backend.server) };
}

export {
  createNamespaces,
  eventually,
  hasCondition,
  localClusterClients,
  podsOf,
  smallServiceRequest,
  workloadsOfPods,
} from '../testUtils/localCluster';
export type {
  KueueWorkload,
  LocalClusterClients,
} from '../testUtils/localCluster';
