import { registerChangeGpuServiceAction } from './changeGpuService';
import { registerCreateGpuServiceAction } from './createGpuService';
import { registerDeleteGpuServiceAction } from './deleteGpuService';
import { registerGetGpuServiceCostAction } from './getGpuServiceCost';
import { registerGetGpuServiceStatusAction } from './getGpuServiceStatus';
import { withFieldErrors } from './fieldErrors';
import { withGuards } from './guardedActions';
import { registerListGpuServicesAction } from './listGpuServices';
import { registerListGpuTeamQuotasAction } from './listGpuTeamQuotas';
import { registerQuoteGpuServiceAction } from './quoteGpuService';
import { GpuActionsOptions } from './types';

/**
 * Registers the gpu plugin's operations in the Actions Registry (ids `gpu:<name>`), for the MCP actions backend and
 * any other caller of the actions service. Each calls the authorized services the REST routes call, with the
 * action's credentials. A wrongly typed or missing field is an `InputError` naming it (`withFieldErrors`).
 */
export function registerGpuActions(gpuOptions: GpuActionsOptions): void {
  const options = {
    ...gpuOptions,
    actionsRegistry: withFieldErrors(
      withGuards(gpuOptions.actionsRegistry, {
        logger: gpuOptions.logger,
        rateLimit: gpuOptions.rateLimit,
      }),
    ),
  };
  registerQuoteGpuServiceAction(options);
  registerListGpuServicesAction(options);
  registerGetGpuServiceStatusAction(options);
  registerListGpuTeamQuotasAction(options);
  const usage = options.authorized.usage;
  if (usage) {
    registerGetGpuServiceCostAction({ ...options, usage });
  }
  registerCreateGpuServiceAction(options);
  registerChangeGpuServiceAction(options);
  registerDeleteGpuServiceAction(options);
}
