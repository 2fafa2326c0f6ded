import { AuditorService, LoggerService } from '@backstage/backend-plugin-api';
import { ActionsRegistryService } from '@backstage/backend-plugin-api/alpha';
import { Platform } from '@gpu-platform/backstage-plugin-gpu-common';
import { AuthorizedApi } from '../authorization/createAuthorizedApi';
import { ActionRateLimit } from './guardedActions';

/** What the gpu actions call: the same authorized services as the REST routes, with the action's credentials. */
export interface GpuActionsOptions {
  actionsRegistry: ActionsRegistryService;
  auditor: AuditorService;
  /** Logs what action errors withhold (internal addresses, database faults). */
  logger: LoggerService;
  /** Calls per caller and window (`readActionRateLimit`); unlimited when absent. */
  rateLimit?: ActionRateLimit;
  platform: Platform;
  authorized: AuthorizedApi;
}

/**
 * A value of the API's types as an action's output. The registry checks it against the action's output schema
 * before answering; TypeScript cannot see that an interface fits a schema whose objects pass unknown fields through.
 */
export function apiOutput<T>(value: object): T {
  return value as T;
}
