import { createValidatedOpenApiRouterFromGeneratedEndpointMap } from '@backstage/backend-openapi-utils';
import { PermissionsRegistryService } from '@backstage/backend-plugin-api';
import { mockServices } from '@backstage/backend-test-utils';
import { Platform } from '@gpu-platform/backstage-plugin-gpu-common';
import express from 'express';
import { AuthorizedGovernance } from '../authorization/AuthorizedGovernance';
import { AuthorizedServices } from '../authorization/AuthorizedServices';
import { AuthorizedUsage } from '../authorization/AuthorizedUsage';
import { GpuAccess } from '../authorization/GpuAccess';
import { GpuStore } from '../database';
import { registerUsageRoutes } from '../routes/usage';
import { EndpointMap, spec } from '../schema/openapi';
import { ServiceManager } from '../services/ServiceManager';
import { ServiceStatusRefresher } from '../services/ServiceStatusRefresher';
import { UsageService } from '../usage/UsageService';

/**
 * The usage routes over a usage service, for tests of usage and cost: every caller is allowed (the permission
 * decisions are tested with the real policy elsewhere), so no lifecycle is needed. Requests are validated against
 * the spec as in the plugin. Also the cost benchmark's routes (bench/cost.ts).
 */
export function allowAllUsageRoutes(options: {
  usage: UsageService;
  store: GpuStore;
  platform: Platform;
}): express.Router {
  // No jest mock here: the cost benchmark serves the same routes outside jest.
  const permissionsRegistry = {
    getPermissionRuleset: () => ({ getRuleByName: () => undefined }),
  } as unknown as PermissionsRegistryService;
  const access = new GpuAccess(mockServices.permissions(), permissionsRegistry);
  const unused = {} as ServiceManager & ServiceStatusRefresher;
  const services = new AuthorizedServices({
    access,
    store: options.store,
    services: unused,
    statuses: unused,
  });
  const governance = new AuthorizedGovernance({
    access,
    platform: options.platform,
    store: options.store,
    services: unused,
    authorizedServices: services,
  });
  // The generated createOpenApiRouter is async only in name; its synchronous core keeps this helper synchronous.
  const router =
    createValidatedOpenApiRouterFromGeneratedEndpointMap<EndpointMap>(spec, {
      validatorOptions: { validateSecurity: false },
    });
  registerUsageRoutes(router, {
    httpAuth: mockServices.httpAuth(),
    usage: new AuthorizedUsage({
      access,
      usage: options.usage,
      services,
      governance,
    }),
  });
  return router;
}
