import { AuthorizedUsage } from '../authorization/AuthorizedUsage';
import { apiOutput, GpuActionsOptions } from './types';

/** `get-gpu-service-cost`: `GET /services/:id/cost` (read permission on the service). */
export function registerGetGpuServiceCostAction(
  options: GpuActionsOptions & { usage: AuthorizedUsage },
) {
  const { actionsRegistry, usage } = options;
  actionsRegistry.register({
    name: 'get-gpu-service-cost',
    title: 'Get the cost of a GPU model service',
    description:
      'Reads what a GPU model service the caller may read has cost over a window: allocation cost, and when Prometheus metrics are available its usage and idle split, utilisation and cost per 1,000 tokens; money in integer micro-dollars. The metrics field says why usage is missing when it is.',
    attributes: { readOnly: true, idempotent: true, destructive: false },
    schema: {
      input: z =>
        z.object({
          serviceId: z
            .string()
            .describe('Service id, as list-gpu-services returns it'),
          window: z
            .string()
            .optional()
            .describe(
              'Window ending now: 1h, 6h, 24h, 7d or 30d, or an ISO 8601 duration from PT5M to P90D (24h)',
            ),
        }),
      output: z =>
        z
          .object({
            serviceId: z.string(),
            name: z.string(),
            team: z.string(),
            tier: z.string(),
            pool: z.string(),
            allocationMicros: z
              .number()
              .describe('Allocation cost over the window, micro-dollars'),
            usageMicros: z
              .number()
              .optional()
              .describe('The part of it used (needs metrics)'),
            idleMicros: z
              .number()
              .optional()
              .describe('The part of it idle (needs metrics)'),
            reservedMicros: z
              .number()
              .describe('Held but not running: reserved, not spend'),
            accrualBasis: z
              .string()
              .describe('cluster-status, reservation or dry-run'),
            metrics: z
              .object({})
              .passthrough()
              .describe('Whether usage metrics were read, and why not'),
          })
          .passthrough(),
    },
    action: async ({ input, credentials }) => ({
      output: apiOutput(
        await usage.serviceCost(credentials, input.serviceId, input.window),
      ),
    }),
  });
}
