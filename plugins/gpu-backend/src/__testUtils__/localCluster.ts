import {
  BackendFeature,
  SchedulerService,
} from '@backstage/backend-plugin-api';
import { mockServices, startTestBackend } from '@backstage/backend-test-utils';
import { demoPlatformConfig } from '@gpu-platform/backstage-plugin-gpu-common';
import { JsonObject } from '@backstage/types';
import { KubeConfig } from '@kubernetes/client-node';
import request from 'supertest';
import { gpuPlugin } from '../plugin';
import { PLATFORM_RECONCILE_TASK_ID } from '../reconciler';
import { eventually } from '../testUtils/localCluster';
import { schedulerCapture } from './schedulerCapture';
import { userInGroups } from './userInGroups';
import { databaseClosedOnShutdown } from '../testUtils/databaseClosedOnShutdown';

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
 * applying to the local control plane through its kubeconfig, or with `serviceAccountToken` as a
 * `kubernetes.clusterLocatorMethods` cluster (the kubeconfig's API server and CA, that bearer token); the caller is a
 * member of `groups`.
 *
 * Its team ClusterQueues join a Kueue cohort of their own (`suite-<first team>`, unless `gpu.kueue` says otherwise):
 * the suites share one cluster, and ClusterQueues another suite left in a shared cohort would lend their unused quota,
 * so what Kueue admits would depend on which suites ran before.
 *
 * The platform loop (Kueue ResourceFlavors, Cohort, ClusterQueues, LocalQueues) runs once before the backend is
 * returned, as it does shortly after a real backend starts: the test scheduler runs no task on its own, and a service
 * apply sends only the service's and its team's namespaced objects.
 */
export async function startLocalClusterBackend(options: {
  kubeconfig: string;
  teams: TeamConfig[];
  groups: string[];
  gpu?: Record<string, unknown>;
  features?: BackendFeature[];
  serviceAccountToken?: string;
  /** Whether the platform loop runs once at start (see above); true when omitted. */
  platformLoopAtStart?: boolean;
  /** Config outside `gpu` (e.g. `backend.database`), merged in at the top level. */
  config?: JsonObject;
}) {
  const cluster: { gpu: JsonObject[]; kubernetes?: JsonObject } =
    options.serviceAccountToken
      ? serviceAccountCluster(options.kubeconfig, options.serviceAccountToken)
      : {
          gpu: [
            {
              name: LOCAL_CLUSTER,
              mode: 'apply',
              kubeconfig: options.kubeconfig,
            },
          ],
        };
  const platformLoop = schedulerCapture('test-local-cluster-platform-loop');
  const backend = await startTestBackend({
    features: [
      databaseClosedOnShutdown,
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
            clusters: cluster.gpu,
            ...options.gpu,
          },
          ...(cluster.kubernetes ? { kubernetes: cluster.kubernetes } : {}),
          ...options.config,
        },
      }),
      userInGroups(options.groups),
      platformLoop.module,
    ],
  });
  if (options.platformLoopAtStart ?? true) {
    await platformLoop.scheduler().triggerTask(PLATFORM_RECONCILE_TASK_ID);
  }
  return { backend, http: request(backend.server) };
}

/**
 * Runs a pass of the platform loop that starts after this call and answers its drift report for `cluster`. The test
 * scheduler's `triggerTask` returns at once, running nothing, while a pass is already running (one a quota write
 * triggered, say), and that pass's report is older than the call: so each attempt triggers again until a newer report
 * is stored.
 */
export async function reconcileNow(
  http: ReturnType<typeof request>,
  scheduler: Pick<SchedulerService, 'triggerTask'>,
  cluster = LOCAL_CLUSTER,
) {
  const before = Date.now();
  return eventually('a drift report newer than the trigger', async () => {
    await scheduler.triggerTask(PLATFORM_RECONCILE_TASK_ID);
    const res = await http.get('/api/gpu/clusters/drift').expect(200);
    const report = res.body.items.find(
      (r: { cluster: string }) => r.cluster === cluster,
    );
    return report && Date.parse(report.checkedAt) >= before
      ? report
      : undefined;
  });
}

/** `gpu.clusters` and the `kubernetes` config of the local control plane reached with a service-account token. */
function serviceAccountCluster(
  kubeconfig: string,
  token: string,
): { gpu: JsonObject[]; kubernetes: JsonObject } {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const { server, caData } = kc.getCurrentCluster()!;
  return {
    gpu: [{ name: LOCAL_CLUSTER, mode: 'apply' }],
    kubernetes: {
      clusterLocatorMethods: [
        {
          type: 'config',
          clusters: [
            {
              name: LOCAL_CLUSTER,
              url: server,
              authProvider: 'serviceAccount',
              serviceAccountToken: token,
              ...(caData ? { caData } : {}),
            },
          ],
        },
      ],
    },
  };
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
