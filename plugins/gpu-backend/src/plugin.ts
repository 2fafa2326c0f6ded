import {
  coreServices,
  createBackendPlugin,
} from '@backstage/backend-plugin-api';
import { actionsRegistryServiceRef } from '@backstage/backend-plugin-api/alpha';
import { catalogServiceRef } from '@backstage/plugin-catalog-node';
import { notificationService } from '@backstage/plugin-notifications-node';
import { signalsServiceRef } from '@backstage/plugin-signals-node';
import {
  gpuApprovePermission,
  gpuQuotaReadPermission,
  gpuQuotaUpdatePermission,
  gpuServicePermissions,
  readAutoscaledReplicasPolicy,
  readPlatformConfig,
  readPlatformGroups,
  readPlatformOperations,
  readServiceDefaults,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  gpuServicePermissionRules,
  gpuServiceResourceRef,
} from '@gpu-platform/backstage-plugin-gpu-node';
import { readActionRateLimit } from './actions/guardedActions';
import { registerGpuActions } from './actions/registerGpuActions';
import { serviceResource } from './authorization/AuthorizedServices';
import { catalogGroups } from './authorization/catalogGroups';
import { catalogComponents } from './authorization/componentOwnership';
import { createAuthorizedApi } from './authorization/createAuthorizedApi';
import { gitopsBatchGraceMs } from './batch/BatchJobs';
import { createBatchJobs } from './batch/createBatchJobs';
import {
  ClusterConfig,
  ClusterStatusReader,
  resolveFleet,
  createClusterApplier,
  DifferenceApplier,
  createClusterStatusReader,
  KubernetesClientFactory,
} from './cluster';
import { DatabaseGpuStore } from './database';
import { assertDurableDatabaseForApply } from './durableDatabase';
import { RunPeriodStore } from './database/runPeriods';
import { createPlatformChecks } from './platformChecks';
import { createRouter } from './router';
import { readPoolCapacityPolicy } from './admission/readPoolCapacityPolicy';
import { createQuoteService } from './services/QuoteService';
import { seedQuotas } from './services/seedQuotas';
import { InterruptedApplyResumer } from './services/InterruptedApplyResumer';
import { ClusterRoute, ServiceManager } from './services/ServiceManager';
import { ServiceStatusRefresher } from './services/ServiceStatusRefresher';
import { scheduleConfirmationExpiry } from './services/scheduleConfirmationExpiry';
import { Forges } from './gitops/forges';
import {
  GitOpsFollower,
  scheduleGitOpsFollower,
} from './gitops/GitOpsFollower';
import { OwnedObjectsReader } from './gitops/OwnedObjectsReader';
import {
  APPLY_RESUME_TASK_ID,
  readStatusSettings,
  scheduleStatusTasks,
  STATUS_REFRESH_TASK_ID,
} from './services/scheduleStatusTasks';
import {
  PLATFORM_RECONCILE_TASK_ID,
  PlatformReconciler,
  readReconcileSettings,
  reconciledClusters,
  schedulePlatformReconciler,
} from './reconciler';
import { LoopTrigger } from './reconciler/LoopTrigger';
import { reconcileServiceWork } from './reconciler/reconcileServiceWork';
import { requeueUnsettledServices } from './reconciler/requeueUnsettledServices';
import { ServiceObjectWatches } from './reconciler/ServiceObjectWatches';
import { ServiceWorkQueue } from './reconciler/ServiceWorkQueue';
import { triggeringStore } from './reconciler/triggeringStore';
import { createUsage } from './usage';
import { GpuNotifier, notifyingStore } from './notifications';

/**
 * The `gpu` backend plugin: the platform model, quotes, service requests, quota, approvals, audit and applying.
 *
 * @public
 */
export const gpuPlugin = createBackendPlugin({
  pluginId: 'gpu',
  register(env) {
    env.registerInit({
      deps: {
        actionsRegistry: actionsRegistryServiceRef,
        auditor: coreServices.auditor,
        catalog: catalogServiceRef,
        config: coreServices.rootConfig,
        database: coreServices.database,
        httpAuth: coreServices.httpAuth,
        httpRouter: coreServices.httpRouter,
        lifecycle: coreServices.lifecycle,
        logger: coreServices.logger,
        // Always present (default factories): without the notifications backend a send fails and is logged.
        notifications: notificationService,
        permissions: coreServices.permissions,
        permissionsRegistry: coreServices.permissionsRegistry,
        scheduler: coreServices.scheduler,
        signals: signalsServiceRef,
      },
      async init({
        actionsRegistry,
        auditor,
        catalog,
        config,
        database,
        httpAuth,
        httpRouter,
        lifecycle,
        logger,
        notifications,
        permissions,
        permissionsRegistry,
        scheduler,
        signals,
      }) {
        const clusterConfig = ClusterConfig.fromConfig(config);
        // Every pool on a configured cluster, every environment with one: the backend refuses to start otherwise.
        const platform = resolveFleet(
          readPlatformConfig(config),
          clusterConfig.list(),
        );
        const whenOverPoolCapacity = readPoolCapacityPolicy(config);
        const autoscaledReplicas = readAutoscaledReplicasPolicy(config);
        const operations = readPlatformOperations(config, platform);
        const reconcileSettings = readReconcileSettings(config);
        const serviceDefaults = readServiceDefaults(config, platform);
        await assertDurableDatabaseForApply({
          database,
          clusters: clusterConfig.list(),
          nodeEnv: process.env.NODE_ENV,
        });
        const target = clusterConfig.defaultTarget();
        const statusSettings = readStatusSettings(config);
        const factory = new KubernetesClientFactory();
        // Every cluster with its applier: a service is applied, read and torn down on its pool's.
        const routes = new Map<string, ClusterRoute>();
        // GitOps clusters with a (read-only) credential: decommissions there wait for the controller's prune.
        const gitopsReaders = new Map<string, OwnedObjectsReader>();
        for (const cluster of clusterConfig.list()) {
          if (cluster.mode === 'gitops' && cluster.connection) {
            gitopsReaders.set(
              cluster.name!,
              new OwnedObjectsReader(
                cluster.name!,
                factory.forCluster(cluster.name!, cluster.connection, {
                  requestTimeoutMs: statusSettings.readTimeoutMs,
                }),
              ),
            );
          }
          routes.set(cluster.name!, {
            target: cluster,
            applier: createClusterApplier({ target: cluster, factory, logger }),
          });
        }
        const applier = target.name
          ? routes.get(target.name)?.applier
          : undefined;
        const anyApplier = [...routes.values()].some(r => r.applier);
        // Clusters whose service objects are watched (feeding the queue): every apply cluster.
        const watched = clusterConfig
          .list()
          .filter(c => c.mode === 'apply' && c.connection);
        logger.info('Loaded GPU platform', {
          pools: platform.pools.length,
          teams: platform.teams.length,
          cluster: target.name ?? 'none',
          mode: target.mode,
        });

        // Every committed change of a service or quota is notified and signalled (see GpuNotifier), and starts the
        // loops that drive the cluster towards it (see triggeringStore).
        const notifier = new GpuNotifier({
          notifications,
          signals,
          logger,
          platformGroups: readPlatformGroups(config),
        });
        const notifying = notifyingStore(
          await DatabaseGpuStore.create({
            database,
            platform,
            maxPendingApprovalsPerTeam: config.getOptionalNumber(
              'gpu.approvals.maxPendingPerTeam',
            ),
            whenOverPoolCapacity,
          }),
          notifier,
        );
        const store = triggeringStore(
          notifying,
          new LoopTrigger({ scheduler, logger }),
          {
            platform: PLATFORM_RECONCILE_TASK_ID,
            services: anyApplier
              ? [APPLY_RESUME_TASK_ID, STATUS_REFRESH_TASK_ID]
              : undefined,
          },
        );
        permissionsRegistry.addPermissions([
          gpuQuotaReadPermission,
          gpuQuotaUpdatePermission,
          gpuApprovePermission,
        ]);
        permissionsRegistry.addResourceType({
          resourceRef: gpuServiceResourceRef,
          permissions: gpuServicePermissions,
          rules: Object.values(gpuServicePermissionRules),
          getResources: async ids =>
            Promise.all(
              ids.map(async id => {
                const service = await store.getService(id);
                return service ? serviceResource(service) : undefined;
              }),
            ),
        });
        await seedQuotas({ platform, store, logger });
        const usage = await createUsage({
          config,
          database,
          scheduler,
          logger,
          platform,
          quotas: store,
        });
        const quotes = createQuoteService({
          platform,
          store,
          capacities: usage.capacities,
          whenOverPoolCapacity,
          autoscaledReplicas,
        });
        // The reconciler's work queue: writes record desired state and return; the queue's worker applies or tears
        // down (one service at a time per id, a few at once), and the scheduled resume takes over what a stopped
        // replica left (see InterruptedApplyResumer).
        const queue = anyApplier ? new ServiceWorkQueue(logger) : undefined;
        // Watches of the service objects in the cluster feed the queue (an event enqueues the service it is about)
        // and tell the service applier what is live, so that it applies only what differs; started with the backend,
        // stopped before it shuts down.
        const watches =
          queue &&
          watched.length > 0 &&
          (config.getOptionalBoolean('gpu.apply.watch') ?? true)
            ? new ServiceObjectWatches({
                clusters: watched.map(c => ({
                  name: c.name!,
                  client: factory.watchClientFor(c.name!, c.connection!),
                })),
                kueueApiVersion: platform.kueue.apiVersion,
                enqueue: id => queue.add(id),
                onReconnected: cluster =>
                  requeueUnsettledServices({
                    store,
                    enqueue: id => queue.add(id),
                    cluster,
                    logger,
                  }),
                logger,
              })
            : undefined;
        if (watches) {
          lifecycle.addStartupHook(() => watches.start());
          lifecycle.addShutdownHook(() => watches.stop());
        }
        // Every cluster's status reader; an apply cluster's does not read again the objects its watches show.
        const statusReaders = new Map<string, ClusterStatusReader>();
        const gitopsStatusReaders = new Map<string, ClusterStatusReader>();
        for (const cluster of clusterConfig.list()) {
          const reader = createClusterStatusReader({
            target: cluster,
            factory,
            kueueApiVersion: platform.kueue.apiVersion,
            requestTimeoutMs: statusSettings.readTimeoutMs,
            ...(cluster.mode === 'apply' &&
              watches && {
                live: watches.liveObjects(cluster.name!),
                indexed: watches.indexedObjects(cluster.name!),
              }),
          });
          // GitOps clusters' readers read the GitOps services there, and only those (read-only credential).
          if (reader && cluster.mode === 'gitops') {
            gitopsStatusReaders.set(cluster.name!, reader);
          } else if (reader) statusReaders.set(cluster.name!, reader);
        }
        const statusReader = target.name
          ? statusReaders.get(target.name)
          : undefined;
        // Each cluster's applier applies only what differs from what its watches see live.
        const serviceRoutes = new Map<string, ClusterRoute>(
          [...routes].map(([name, route]) => [
            name,
            route.applier && watches
              ? {
                  ...route,
                  applier: new DifferenceApplier({
                    inner: route.applier,
                    live: watches.liveObjects(name),
                    logger,
                  }),
                }
              : route,
          ]),
        );
        const forges = Forges.fromConfig(config);
        const services = new ServiceManager({
          platform,
          store,
          quotes,
          target,
          applier:
            target.name !== undefined
              ? serviceRoutes.get(target.name)?.applier
              : undefined,
          clusters: serviceRoutes,
          logger,
          serviceDefaults,
          alerts: operations.alerts,
          queue,
          applyRetryForMs: statusSettings.applyRetryForMs,
          confirmWithinMs: statusSettings.confirmWithinMs,
          forges,
          mergeWithinMs: statusSettings.mergeWithinMs,
          gitopsReaders,
        });
        const statuses = new ServiceStatusRefresher({
          store,
          statusReader,
          statusReaders,
          gitopsStatusReaders,
          runs: new RunPeriodStore(await database.getClient()),
          logger,
          statusReadTimeoutMs: statusSettings.readTimeoutMs,
          repair: (service, why) => services.repair(service, why),
          completeMove: service => services.completeMove(service),
        });
        queue?.start(reconcileServiceWork({ services, statuses }));
        const resumer = new InterruptedApplyResumer({
          services,
          store,
          logger,
          resumeAfterMs: statusSettings.resumeAfterMs,
          resumeAttempts: statusSettings.resumeAttempts,
          inHand: id => queue?.has(id) ?? false,
        });
        const batchJobs = createBatchJobs({
          platform,
          store,
          target,
          factory,
          applier,
          clusters: routes,
          logger,
          requestTimeoutMs: statusSettings.readTimeoutMs,
          gitopsGraceMs: gitopsBatchGraceMs(statusSettings),
        });
        // Apply clusters, and GitOps clusters read with a read-only credential, have their services' status read
        // and their batch jobs' reservations released once read finished.
        if (anyApplier || gitopsStatusReaders.size > 0) {
          await scheduleStatusTasks({
            scheduler,
            statuses,
            resumer,
            settings: statusSettings,
            logger,
            batchJobs,
          });
        }

        await scheduleConfirmationExpiry({
          scheduler,
          services,
          logger,
          frequency: statusSettings.confirmationCheckFrequency,
        });

        await scheduleGitOpsFollower({
          scheduler,
          logger,
          frequency: statusSettings.gitopsCheckFrequency,
          follower: new GitOpsFollower({
            store,
            services,
            forges,
            notifier,
            logger,
          }),
        });

        await schedulePlatformReconciler({
          frequency: reconcileSettings.frequency,
          scheduler,
          logger,
          reconciler: new PlatformReconciler({
            platform,
            operations,
            deliver: reconcileSettings.deliver,
            store,
            logger,
            clusters: reconciledClusters(clusterConfig.list(), logger),
          }),
        });

        const authorized = createAuthorizedApi({
          groups: catalogGroups(catalog),
          components: catalogComponents(catalog),
          permissions,
          permissionsRegistry,
          platform,
          store,
          services,
          statuses,
          quotes,
          usage,
        });
        registerGpuActions({
          actionsRegistry,
          auditor,
          logger,
          rateLimit: readActionRateLimit(config),
          platform,
          authorized,
        });

        httpRouter.use(
          await createRouter({
            httpAuth,
            auditor,
            logger,
            authorized,
            platform,
            operations,
            platformChecks: createPlatformChecks({
              platform,
              operations,
              serviceDefaults,
              clusters: clusterConfig.list(),
              factory,
              store,
              requestTimeoutMs: statusSettings.readTimeoutMs,
            }),
            store,
            clusters: clusterConfig.list(),
            batchJobs,
          }),
        );
        httpRouter.addAuthPolicy({ path: '/health', allow: 'unauthenticated' });
      },
    });
  },
});
