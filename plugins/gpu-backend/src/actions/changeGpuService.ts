import { InputError } from '@backstage/errors';
import { UpdateServiceBody } from '@gpu-platform/backstage-plugin-gpu-common';
import { audited } from '../routes/audited';
import { serviceViewOutput } from './schemas/serviceViewOutput';
import { apiOutput, GpuActionsOptions } from './types';

/** `change-gpu-service`: `PATCH /services/:id` (update permission on the service, create on the new placement). */
export function registerChangeGpuServiceAction(options: GpuActionsOptions) {
  const { actionsRegistry, auditor, authorized } = options;
  actionsRegistry.register({
    name: 'change-gpu-service',
    title: 'Change a GPU model service',
    description:
      "Changes the tier, pool, replicas or model of a GPU model service of the caller's team: re-quotes it, moves its quota reservation and re-renders (and in apply mode re-applies) it; a change over quota, budget or tier policy waits for a platform approver.",
    attributes: { readOnly: false, idempotent: true, destructive: false },
    schema: {
      input: z =>
        z.object({
          serviceId: z
            .string()
            .describe('Service id, as list-gpu-services returns it'),
          tier: z
            .string()
            .optional()
            .describe('New sharing tier: dedicated, mig, mps or time-sliced'),
          pool: z.string().optional().describe('New GPU pool'),
          replicas: z.number().optional().describe('New replicas, 1 to 64'),
          model: z.string().optional().describe('New model of the catalogue'),
        }),
      output: z => z.object({ service: serviceViewOutput(z) }),
    },
    action: async ({ input, credentials }) => {
      const { serviceId, ...change } = input;
      if (Object.values(change).every(value => value === undefined)) {
        throw new InputError(
          'Nothing to change: give at least one of tier, pool, replicas or model',
        );
      }
      const service = await audited(
        auditor,
        undefined,
        'service-mutate',
        { actionType: 'update', serviceId },
        // The tier is checked with the rest of the changed request (validateServiceRequest).
        () =>
          authorized.services.update(
            credentials,
            serviceId,
            change as UpdateServiceBody,
          ),
      );
      return { output: apiOutput({ service }) };
    },
  });
}
