import {
  AuthService,
  DiscoveryService,
  resolveSafeChildPath,
} from '@backstage/backend-plugin-api';
import { ConflictError, InputError, NotFoundError } from '@backstage/errors';
import { createTemplateAction } from '@backstage/plugin-scaffolder-node';
import { ServiceRequest } from '@gpu-platform/backstage-plugin-gpu-common';
import {
  GpuBackendClient,
  GpuServiceDetail,
} from '@gpu-platform/backstage-plugin-gpu-node';
import { z as zod } from 'zod/v3';
import { parseActionInput } from './parseActionInput';
import { examples } from './serviceRender.examples';
import { writeManifests } from './writeManifests';

const ID = 'gpu:service:render';

/** The id `gpu:service:create` outputs in a dry run, when nothing was created. */
const PREVIEW_ID = 'dry-run';

const inputFields = {
  serviceId: (z: typeof zod) =>
    z
      .string()
      .min(1)
      .describe('Id of the GPU service (the create step output serviceId)'),
  request: (z: typeof zod) =>
    z
      .record(z.unknown())
      .optional()
      .describe(
        'The service request (the create step output request); used in a dry run, where the create step created nothing and its serviceId is dry-run',
      ),
  targetDir: (z: typeof zod) =>
    z
      .string()
      .default('manifests')
      .describe('Directory in the workspace to write the manifests into'),
  layout: (z: typeof zod) =>
    z
      .enum(['files', 'kustomization', 'single'])
      .default('kustomization')
      .describe(
        'files: one file per object in apply order; kustomization: the same plus kustomization.yaml; single: one multi-document manifests.yaml',
      ),
};

/**
 * `gpu:service:render`: writes the manifests the gpu backend rendered for a service into the workspace, for a GitOps
 * publish step. The service should be recorded in GitOps mode (`gpu:service:create` with `mode: gitops`); a
 * service Backstage applies itself is refused, so two controllers never own the same objects.
 *
 * @public
 */
export function createServiceRenderAction(options: {
  discovery: DiscoveryService;
  auth: AuthService;
}) {
  const client = new GpuBackendClient(options);
  return createTemplateAction({
    id: ID,
    description:
      'Writes the Kubernetes manifests of a GPU service (recorded in GitOps mode) into the workspace as YAML files, for a publish step',
    examples,
    supportsDryRun: true,
    schema: {
      input: inputFields,
      output: {
        targetDir: z =>
          z.string().describe('Workspace directory holding the manifests'),
        files: z =>
          z
            .array(z.string())
            .describe('Written files, relative to targetDir, in apply order'),
        mode: z => z.string().describe('The service mode: gitops or dry-run'),
      },
    },
    async handler(ctx) {
      const input = parseActionInput(ID, inputFields, ctx.input);
      let directory: string;
      try {
        directory = resolveSafeChildPath(ctx.workspacePath, input.targetDir);
      } catch {
        throw new InputError(
          `Invalid input to ${ID}: targetDir: '${input.targetDir}' is outside the workspace`,
        );
      }
      const credentials = await ctx.getInitiatorCredentials();

      let service: GpuServiceDetail;
      if (input.serviceId === PREVIEW_ID) {
        if (!ctx.isDryRun || !input.request) {
          throw new InputError(
            `Invalid input to ${ID}: serviceId: ${PREVIEW_ID} is the id of a dry run; pass request too (the create step output request)`,
          );
        }
        service = await client.previewService(
          {
            request: input.request as unknown as ServiceRequest,
            mode: 'gitops',
          },
          { credentials },
        );
      } else {
        try {
          service = await client.getService(input.serviceId, { credentials });
        } catch (error) {
          if (error instanceof NotFoundError) {
            throw new InputError(
              `Invalid input to ${ID}: serviceId: no GPU service with id ${input.serviceId}`,
            );
          }
          throw error;
        }
      }
      if (service.mode === 'apply') {
        throw new InputError(
          `${service.name} is applied to the cluster by Backstage (mode apply); create it with mode: gitops to publish its manifests`,
        );
      }
      if (service.manifests.length === 0) {
        throw new ConflictError(
          `${service.name} has no manifests yet (status ${service.status}${
            service.statusReason ? `: ${service.statusReason}` : ''
          }); they are rendered once it is approved`,
        );
      }

      const files = await writeManifests(
        directory,
        service.manifests,
        input.layout,
      );
      ctx.logger.info(
        `Wrote ${service.manifests.length} object(s) of ${service.name} to ${input.targetDir} (${input.layout})`,
      );
      ctx.output('targetDir', input.targetDir);
      ctx.output('files', files);
      ctx.output('mode', service.mode);
    },
  });
}
