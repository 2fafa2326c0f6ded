import { audited } from '../routes/audited';
import { parseCreateServiceBody } from '../services/parseCreateServiceBody';
import { serviceRequestInput } from './schemas/serviceRequestInput';
import { serviceViewOutput } from './schemas/serviceViewOutput';
import { apiOutput, GpuActionsOptions } from './types';

/** `create-gpu-service`: `POST /services` (create permission for the team, on the placement chosen). */
export function registerCreateGpuServiceAction(options: GpuActionsOptions) {
  const { actionsRegistry, auditor, authorized } = options;
  actionsRegistry.register({
    name: 'create-gpu-service',
    title: 'Create a GPU model service',
    description:
      "Requests a GPU model service for a team the caller belongs to: validates and quotes it, places it on the recommended (or requested) tier and pool, reserves the team's quota and renders its Kubernetes manifests; it is applied at once, or waits for a platform approver when over quota, budget or tier policy (status pending-approval). With dryRun it only answers what would be created. A retry with the same requestKey returns the first service.",
    attributes: { readOnly: false, idempotent: false, destructive: false },
    schema: {
      input: z =>
        z.object({
          request: serviceRequestInput(z),
          entityRef: z
            .string()
            .optional()
            .describe(
              'Catalog component the service belongs to, e.g. component:default/summariser',
            ),
          requestKey: z
            .string()
            .optional()
            .describe(
              'Idempotency key, 1 to 200 characters: a retry with the same key returns the first service',
            ),
          mode: z
            .string()
            .optional()
            .describe(
              'gitops: record and render, never apply (a GitOps controller applies the manifests); omit for the cluster mode',
            ),
          dryRun: z
            .boolean()
            .optional()
            .describe(
              'Validate, quote and render only: answers what would be created (id dry-run), stores nothing',
            ),
        }),
      output: z =>
        z.object({
          created: z
            .boolean()
            .describe(
              'Whether this call created it (false for a dry run or a retry with the same requestKey)',
            ),
          service: serviceViewOutput(z),
        }),
    },
    action: async ({ input, credentials }) => {
      const body = parseCreateServiceBody(input);
      if (body.dryRun) {
        const result = await authorized.services.create(credentials, body);
        if (!('preview' in result)) throw new Error('unreachable: a dry run');
        const { manifests: _manifests, ...preview } = result.preview;
        return { output: apiOutput({ created: false, service: preview }) };
      }
      const result = await audited(
        auditor,
        undefined,
        'service-mutate',
        { actionType: 'create' },
        () => authorized.services.create(credentials, body),
      );
      if ('preview' in result) throw new Error('unreachable: not a dry run');
      return {
        output: apiOutput({ created: result.created, service: result.service }),
      };
    },
  });
}
