import { audited } from '../routes/audited';
import { serviceViewOutput } from './schemas/serviceViewOutput';
import { apiOutput, GpuActionsOptions } from './types';

/** `delete-gpu-service`: `DELETE /services/:id` (delete permission on the service). */
export function registerDeleteGpuServiceAction(options: GpuActionsOptions) {
  const { actionsRegistry, auditor, authorized } = options;
  actionsRegistry.register({
    name: 'delete-gpu-service',
    title: 'Delete a GPU model service',
    description:
      "Tears down a GPU model service of the caller's team: removes its Kubernetes objects (apply mode) and releases its quota reservation. The service stays listed with status deleted.",
    attributes: { readOnly: false, idempotent: true, destructive: true },
    schema: {
      input: z =>
        z.object({
          serviceId: z
            .string()
            .describe('Service id, as list-gpu-services returns it'),
        }),
      output: z => z.object({ service: serviceViewOutput(z) }),
    },
    action: async ({ input, credentials }) => {
      const { serviceId } = input;
      const service = await audited(
        auditor,
        undefined,
        'service-mutate',
        { actionType: 'delete', serviceId },
        () => authorized.services.delete(credentials, serviceId),
      );
      return { output: apiOutput({ service }) };
    },
  });
}
