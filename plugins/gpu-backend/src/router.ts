import {
  AuditorService,
  HttpAuthService,
  LoggerService,
} from '@backstage/backend-plugin-api';
import {
  Platform,
  PlatformOperations,
} from '@gpu-platform/backstage-plugin-gpu-common';
import express from 'express';
import { AuthorizedApi } from './authorization/createAuthorizedApi';
import { AuthorizedPlatformChecks } from './authorization/AuthorizedPlatformChecks';
import { AuthorizedPlatformManifests } from './authorization/AuthorizedPlatformManifests';
import { AuthorizedBatchJobs } from './batch/AuthorizedBatchJobs';
import { BatchJobs } from './batch/BatchJobs';
import { ClusterTarget } from './cluster';
import { GpuStore } from './database';
import { answersWithoutAddresses } from './routes/answersWithoutAddresses';
import { registerApprovalsRoutes } from './routes/approvals';
import { registerAuditRoutes } from './routes/audit';
import { registerBatchJobsRoutes } from './routes/batchJobs';
import { jsonBody } from './routes/jsonBody';
import { PlatformChecks } from './platformChecks';
import { registerPlatformRoutes } from './routes/platform';
import { registerPlatformChecksRoutes } from './routes/platformChecks';
import { registerPlatformManifestsRoutes } from './routes/platformManifests';
import { publicErrors } from './routes/publicErrors';
import { registerQuotaRoutes } from './routes/quota';
import { rejectNulBytes } from './routes/rejectNulBytes';
import { registerServicesRoutes } from './routes/services';
import { registerUsageRoutes } from './routes/usage';
import { createOpenApiRouter } from './schema/openapi';

/** Collaborators of the gpu REST API. */
export interface RouterOptions {
  httpAuth: HttpAuthService;
  auditor: AuditorService;
  /** Logs what error answers withhold (internal addresses, database faults). */
  logger: LoggerService;
  /** The authorized services the routes call with the caller's credentials (shared with the plugin's actions). */
  authorized: AuthorizedApi;
  platform: Platform;
  /** Karpenter and alert settings: the platform objects exported for GitOps clusters include theirs. */
  operations: PlatformOperations;
  /** The platform checks of the config and the apply clusters (`/platform/checks`). */
  platformChecks: PlatformChecks;
  store: GpuStore;
  clusters: ClusterTarget[];
  /** Submits GPU batch jobs and reads them back (`/batch-jobs`). */
  batchJobs: BatchJobs;
}

/**
 * Creates the `/api/gpu` router: the router generated from `src/schema/openapi.yaml`, which validates each
 * request against the spec (a 400 naming the field otherwise) and serves the spec at `/openapi.json`, with the
 * routes of each concept registered on it, over the authorized services that decide the caller's permissions.
 * In front of it, the JSON body parser (413 past its limit, outside the validator, which would turn any error into
 * a 400) and the NUL character check; behind it, the errors as callers get them (`publicErrors`). No answer's
 * messages name internal addresses (`answersWithoutAddresses`).
 */
export async function createRouter(
  options: RouterOptions,
): Promise<express.Router> {
  const { httpAuth, auditor, platform, store, clusters } = options;
  const { access, services, governance, quotes, usage } = options.authorized;

  const router = await createOpenApiRouter({
    middleware: [rejectNulBytes()],
    // Credentials are Backstage's to check (httpAuth in each handler, the http router's auth policies: 401); the
    // spec's security scheme documents them.
    validatorOptions: { validateSecurity: false },
  });
  registerPlatformRoutes(router, { httpAuth, platform, clusters, quotes });
  registerPlatformManifestsRoutes(router, {
    httpAuth,
    platformManifests: new AuthorizedPlatformManifests({
      access,
      platform,
      operations: options.operations,
      store,
      clusters,
    }),
  });
  registerPlatformChecksRoutes(router, {
    httpAuth,
    checks: new AuthorizedPlatformChecks({
      access,
      checks: options.platformChecks,
    }),
  });
  registerServicesRoutes(router, { httpAuth, auditor, services });
  registerQuotaRoutes(router, { httpAuth, auditor, governance });
  registerApprovalsRoutes(router, { httpAuth, auditor, governance });
  registerAuditRoutes(router, { httpAuth, governance });
  registerBatchJobsRoutes(router, {
    httpAuth,
    auditor,
    batchJobs: new AuthorizedBatchJobs({
      access,
      platform,
      batchJobs: options.batchJobs,
    }),
  });
  if (usage) {
    registerUsageRoutes(router, {
      httpAuth,
      usage,
      clusters: clusters.flatMap(c => (c.name ? [c.name] : [])),
    });
  }
  const edge = express.Router();
  edge.use(answersWithoutAddresses());
  edge.use(jsonBody());
  edge.use(router);
  edge.use(publicErrors(options.logger));
  return edge;
}
