import { createValidatedOpenApiRouterFromGeneratedEndpointMap } from '@backstage/backend-openapi-utils';
import { PermissionsRegistryService } from '@backstage/backend-plugin-api';
import { mockServices } from '@backstage/backend-test-utils';
import { Platform } from '../plugins/gpu-common/src';
import express from 'express';
import { AuthorizedGovernance } from '../plugins/gpu-backend/src/authorization/AuthorizedGovernance';
import { AuthorizedServices } from '../plugins/gpu-backend/src/authorization/AuthorizedServices';
import { AuthorizedUsage } from '../plugins/gpu-backend/src/authorization/AuthorizedUsage';
import { GpuAccess } from '../plugins/gpu-backend/src/authorization/GpuAccess';
import { GpuStore } from '../plugins/gpu-backend/src/database';
import { registerUsageRoutes } from '../plugins/gpu-backend/src/routes/usage';
import { EndpointMap, spec } from '../plugins/gpu-backend/src/schema/openapi';
import { ServiceManager } from '../plugins/gpu-backend/src/services/ServiceManager';
import { ServiceStatusRefresher } from '../plugins/gpu-backend/src/services/ServiceStatusRefresher';
import { UsageService } from '../plugins/gpu-backend/src/usage/UsageService';

/**
 * The gpu plugin's usage routes (the generated router validating against the spec, `registerUsageRoutes`,
 * `AuthorizedUsage`) over a usage service, every caller allowed, for the cost benchmark. Like the tests'
 * `allowAllUsageRoutes`, without jest's mocks, which need jest.
 */
export function benchUsageRoutes(options: {
  usage: UsageService;
  store: GpuStore;
  platform: Platform;
}): express.Router {
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
