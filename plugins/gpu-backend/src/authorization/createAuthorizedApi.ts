import {
  PermissionsRegistryService,
  PermissionsService,
} from '@backstage/backend-plugin-api';
import { Platform } from '@gpu-platform/backstage-plugin-gpu-common';
import { GpuStore } from '../database';
import { ServiceManager } from '../services/ServiceManager';
import { ServiceStatusRefresher } from '../services/ServiceStatusRefresher';
import { FitAndPriceQuotes, QuoteService } from '../services/QuoteService';
import { UsageService } from '../usage';
import { AuthorizedGovernance } from './AuthorizedGovernance';
import { AuthorizedQuotes } from './AuthorizedQuotes';
import { AuthorizedServices } from './AuthorizedServices';
import { AuthorizedUsage, GroupSource } from './AuthorizedUsage';
import { ComponentSource } from './componentOwnership';
import { GpuAccess } from './GpuAccess';
import { RecentTeamReadDecisions } from './RecentTeamReadDecisions';

/**
 * The authorized service layer of the gpu plugin: what the REST routes and the Actions Registry's actions both call
 * with their caller's credentials, so one permission policy decides either way.
 */
export interface AuthorizedApi {
  access: GpuAccess;
  services: AuthorizedServices;
  governance: AuthorizedGovernance;
  /** Quotes, with the team's figures for callers who may read the team's quota. */
  quotes: AuthorizedQuotes;
  /** Present when the plugin has a usage service (its usage and cost routes and actions need it). */
  usage?: AuthorizedUsage;
}

export function createAuthorizedApi(options: {
  permissions: PermissionsService;
  permissionsRegistry: PermissionsRegistryService;
  platform: Platform;
  store: GpuStore;
  services: ServiceManager;
  statuses: ServiceStatusRefresher;
  quotes: QuoteService & FitAndPriceQuotes;
  usage?: UsageService;
  /** The catalog's groups, for cost roll-ups. */
  groups?: GroupSource;
  /** The catalog's components, to check a service is bound to one of its team's. */
  components?: ComponentSource;
}): AuthorizedApi {
  const { platform, store } = options;
  const access = new GpuAccess(
    options.permissions,
    options.permissionsRegistry,
  );
  const services = new AuthorizedServices({
    access,
    store,
    services: options.services,
    statuses: options.statuses,
    components: options.components,
  });
  const governance = new AuthorizedGovernance({
    access,
    platform,
    store,
    services: options.services,
    authorizedServices: services,
    whenOverPoolCapacity: options.quotes.whenOverPoolCapacity,
  });
  return {
    access,
    services,
    governance,
    quotes: new AuthorizedQuotes({
      quotes: options.quotes,
      decisions: new RecentTeamReadDecisions({ access }),
    }),
    usage: options.usage
      ? new AuthorizedUsage({
          access,
          usage: options.usage,
          services,
          governance,
          groups: options.groups,
        })
      : undefined,
  };
}
