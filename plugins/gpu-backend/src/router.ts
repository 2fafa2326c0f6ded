import {
  AuditorService,
  HttpAuthService,
  PermissionsRegistryService,
  PermissionsService,
} from '@backstage/backend-plugin-api';
import { Platform } from '@internal/backstage-plugin-gpu-common';
import express from 'express';
import Router from 'express-promise-router';
import { AuthorizedGovernance } from './authorization/AuthorizedGovernance';
import { AuthorizedServices } from './authorization/AuthorizedServices';
import { AuthorizedUsage } from './authorization/AuthorizedUsage';
import { GpuAccess } from './authorization/GpuAccess';
import { ClusterTarget } from './cluster';
import { GpuStore } from './database';
import { createApprovalsRoutes } from './routes/approvals';
import { createAuditRoutes } from './routes/audit';
import { createPlatformRoutes } from './routes/platform';
import { createQuotaRoutes } from './routes/quota';
import { createServicesRoutes } from './routes/services';
import { createUsageRoutes } from './routes/usage';
import { QuoteService } from './services/QuoteService';
import { ServiceManager } from './services/ServiceManager';
import { ServiceStatusRefresher } from './services/ServiceStatusRefresher';
import { UsageService } from './usage';

/** Collaborators of the gpu REST API. */
export interface RouterOptions {
  httpAuth: HttpAuthService;
  auditor: AuditorService;
  permissions: PermissionsService;
  permissionsRegistry: PermissionsRegistryService;
  platform: Platform;
  quotes: QuoteService;
  store: GpuStore;
  services: ServiceManager;
  /** Reads the cluster status of a service for `GET /services/:id`. */
  statuses: ServiceStatusRefresher;
  clusters: ClusterTarget[];
  /** Usage and cost (Prometheus metrics, cost, recommendations); its routes are mounted when given. */
  usage?: UsageService;
}

/**
 * Creates the `/api/gpu` router: the routes of each concept, over the authorized services that decide the
 * caller's permissions.
 */
export async function createRouter(
  options: RouterOptions,
): Promise<express.Router> {
  const { httpAuth, auditor, platform, store, clusters, quotes } = options;
  const access = new GpuAccess(
    options.permissions,
    options.permissionsRegistry,
  );
  const services = new AuthorizedServices({
    access,
    store,
    services: options.services,
    statuses: options.statuses,
  });
  const governance = new AuthorizedGovernance({
    access,
    platform,
    store,
    services: options.services,
    authorizedServices: services,
  });

  const router = Router();
  router.use(express.json({ limit: '256kb' }));
  router.use(createPlatformRoutes({ httpAuth, platform, clusters, quotes }));
  router.use(createServicesRoutes({ httpAuth, auditor, services }));
  router.use(createQuotaRoutes({ httpAuth, auditor, governance }));
  router.use(createApprovalsRoutes({ httpAuth, auditor, governance }));
  router.use(createAuditRoutes({ httpAuth, governance }));
  if (options.usage) {
    const usage = new AuthorizedUsage({
      access,
      usage: options.usage,
      services,
      governance,
    });
    router.use(createUsageRoutes({ httpAuth, usage }));
  }
  return router;
}
