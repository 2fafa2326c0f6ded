import { InputError } from '@backstage/errors';
import { ServiceStatus } from '@gpu-platform/backstage-plugin-gpu-common';
import { serviceViewOutput } from './schemas/serviceViewOutput';
import { apiOutput, GpuActionsOptions } from './types';

const STATUSES: Record<ServiceStatus, true> = {
  'pending-approval': true,
  approved: true,
  applying: true,
  starting: true,
  ready: true,
  failed: true,
  rejected: true,
  deleting: true,
  deleted: true,
};

function parseStatus(status: string | undefined): ServiceStatus | undefined {
  if (status === undefined || status in STATUSES) {
    return status as ServiceStatus | undefined;
  }
  throw new InputError(
    `Invalid status "${status}"; allowed: ${Object.keys(STATUSES).join(', ')}`,
  );
}

/** `list-gpu-services`: `GET /services`, the services the caller may read (their teams'; every team's for the platform team). */
export function registerListGpuServicesAction(options: GpuActionsOptions) {
  const { actionsRegistry, authorized } = options;
  actionsRegistry.register({
    name: 'list-gpu-services',
    title: 'List GPU model services',
    description:
      "Lists the GPU model services the caller may read (their own teams'; the platform team sees every team's), newest first, one page at a time, optionally filtered by team, status, environment, catalog entity or a part of the name.",
    attributes: { readOnly: true, idempotent: true, destructive: false },
    schema: {
      input: z =>
        z.object({
          team: z.string().optional().describe('Only services of this team'),
          status: z
            .string()
            .optional()
            .describe(
              `Only services with this status: ${Object.keys(STATUSES).join(
                ', ',
              )}`,
            ),
          environment: z
            .string()
            .optional()
            .describe('Only services of this environment'),
          entityRef: z
            .string()
            .optional()
            .describe(
              'Only the service bound to this catalog component, e.g. component:default/summariser',
            ),
          search: z
            .string()
            .optional()
            .describe('Part of the service or team name, case-insensitive'),
          limit: z.number().optional().describe('Page size, 1 to 200 (50)'),
          cursor: z
            .string()
            .optional()
            .describe('nextCursor of the previous page'),
        }),
      output: z =>
        z.object({
          items: z.array(serviceViewOutput(z)),
          nextCursor: z
            .string()
            .optional()
            .describe('Present when more services match: pass it as cursor'),
        }),
    },
    action: async ({ input, credentials }) => ({
      output: apiOutput(
        await authorized.services.list(credentials, {
          ...input,
          status: parseStatus(input.status),
        }),
      ),
    }),
  });
}
