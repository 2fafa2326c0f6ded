import { serviceViewOutput } from './schemas/serviceViewOutput';
import { apiOutput, GpuActionsOptions } from './types';

/** `get-gpu-service-status`: `GET /services/:id` without its manifests (read permission on the service). */
export function registerGetGpuServiceStatusAction(options: GpuActionsOptions) {
  const { actionsRegistry, authorized } = options;
  actionsRegistry.register({
    name: 'get-gpu-service-status',
    title: 'Get the status of a GPU model service',
    description:
      "Reads a GPU model service the caller may read (a member of its team, or the platform team): its status and why, placement, cost, approval and, when it is applied to a cluster, the cluster's status (Deployment, Kueue admission, pods, warnings) read live.",
    attributes: { readOnly: true, idempotent: true, destructive: false },
    schema: {
      input: z =>
        z.object({
          serviceId: z
            .string()
            .describe('Service id, as list-gpu-services returns it'),
        }),
      output: z =>
        z.object({
          service: serviceViewOutput(z),
          clusterStatus: z
            .object({})
            .passthrough()
            .optional()
            .describe(
              "The cluster's status of the service (apply mode): Deployment, Kueue workload, pods and warnings",
            ),
        }),
    },
    action: async ({ input, credentials }) => {
      const {
        manifests: _manifests,
        clusterStatus,
        ...service
      } = await authorized.services.get(credentials, input.serviceId);
      return {
        output: apiOutput({
          service,
          ...(clusterStatus ? { clusterStatus } : {}),
        }),
      };
    },
  });
}
