import { AuthService, DiscoveryService } from '@backstage/backend-plugin-api';
import { ConflictError, InputError } from '@backstage/errors';
import { createTemplateAction } from '@backstage/plugin-scaffolder-node';
import { CatalogService } from '@backstage/plugin-catalog-node';
import {
  GpuServiceView,
  isGpuDomainError,
  parseGroupEntityRef,
  ServiceRequest,
  teamGroupRef,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { GpuBackendClient } from '@gpu-platform/backstage-plugin-gpu-node';
import { z as zod } from 'zod/v3';
import { LocalCatalogDirectory } from '../catalog/LocalCatalogDirectory';
import { assertNoTakeover } from '../catalog/teamOwnership';
import { describeServiceState } from './describeServiceState';
import { normaliseEntityRef } from './normaliseEntityRef';
import { parseActionInput } from './parseActionInput';
import { examples } from './serviceCreate.examples';
import { serviceRequestInput } from './serviceRequestInput';

const ID = 'gpu:service:create';

const inputFields = {
  ...serviceRequestInput,
  entityRef: (z: typeof zod) =>
    z
      .string()
      .optional()
      .describe(
        'Catalog Component the service belongs to; defaults to component:default/<name>. When it is already in ' +
          "the catalog it must be the team's own, registered through the local catalog directory",
      ),
  owner: (z: typeof zod) =>
    z
      .string()
      .optional()
      .describe(
        "Owner the template writes into catalog-info.yaml (e.g. the form's OwnerPicker value); when given it must be " +
          "the team's Group (group:default/<team>), checked before anything is created",
      ),
  mode: (z: typeof zod) =>
    z
      .enum(['gitops'])
      .optional()
      .describe(
        'gitops: record and render the service but never apply it (publish its manifests with gpu:service:render); omitted: the cluster mode',
      ),
  provisional: (z: typeof zod) =>
    z
      .boolean()
      .default(false)
      .describe(
        'true: the service is deleted and its quota released unless a later step (gpu:service:confirm, the ' +
          "template's last) confirms it within the backend's gpu.services.confirmWithin (1 hour by default), so " +
          'a run that fails after this step leaves nothing reserved',
      ),
  whenPendingApproval: (z: typeof zod) =>
    z
      .enum(['continue', 'fail'])
      .default('continue')
      .describe(
        'A request outside policy waits for an approver. continue (default): the step succeeds with status ' +
          'pending-approval and the service is deployed once approved; fail: the request is withdrawn and the step fails',
      ),
};

/** The outputs that say where the service stands. */
const statusOutputFields = {
  serviceId: (z: typeof zod) =>
    z.string().describe('Id of the GPU service (`dry-run` in a dry run)'),
  status: (z: typeof zod) =>
    z
      .string()
      .describe(
        'approved, starting (applied; ready once the Deployment is available), ready, pending-approval, failed, rejected, deleted... (see the gpu backend)',
      ),
  statusText: (z: typeof zod) =>
    z
      .string()
      .describe(
        'The status and mode in words for a template\'s result, e.g. "waiting for approval (Backstage applies it to the cluster)"',
      ),
  statusReason: (z: typeof zod) =>
    z.string().optional().describe('Why the service is in its status'),
  namespace: (z: typeof zod) => z.string().describe('Kubernetes namespace'),
  mode: (z: typeof zod) =>
    z
      .string()
      .describe(
        'apply, gitops or dry-run: what the backend did with the manifests',
      ),
};

/** What the create action outputs for a service. */
function outputsOf(view: GpuServiceView) {
  return {
    serviceId: view.id,
    status: view.status,
    statusText: describeServiceState(view.status, view.mode),
    ...(view.statusReason ? { statusReason: view.statusReason } : {}),
    namespace: view.namespace,
    mode: view.mode,
    endpoint: view.endpoint,
    ...(view.endpointHost ? { endpointHost: view.endpointHost } : {}),
    tier: view.placement.tier,
    pool: view.placement.pool,
    monthlyCost: view.monthlyCost,
    annotations: view.annotations,
    entityRef: view.entityRef ?? '',
    request: view.request,
  };
}

/** Sets every output of `values` (typed loosely: the action's output schema is the contract). */
function writeOutputs(
  output: (name: any, value: any) => void,
  values: Record<string, unknown>,
) {
  for (const [key, value] of Object.entries(values)) {
    output(key, value);
  }
}

/** The service request part of the input (what the backend validates). */
function toServiceRequest(input: Record<string, unknown>): ServiceRequest {
  const request: Record<string, unknown> = {};
  for (const key of Object.keys(serviceRequestInput)) {
    if (input[key] !== undefined) request[key] = input[key];
  }
  return request as unknown as ServiceRequest;
}

/** The `owner` input must name the team's Group, so the catalog entity written later is the team's. */
function assertOwnerIsTeam(owner: string, team: string, teamGroup: string) {
  let ref: string;
  try {
    ref = parseGroupEntityRef(owner, { field: 'owner' }).ref;
  } catch (error) {
    if (isGpuDomainError(error)) {
      throw new InputError(
        `Invalid input to ${ID}: ${(error as Error).message}`,
      );
    }
    throw error;
  }
  if (ref !== teamGroup) {
    throw new InputError(
      `Invalid input to ${ID}: owner: ${ref} is not the group of team ${team} (${teamGroup})`,
    );
  }
}

/**
 * `gpu:service:create`: creates a GPU model service through the gpu backend, on behalf of the user who runs the
 * template. Idempotent: the backend call runs inside a task checkpoint and carries a request key derived from the
 * task and the entity, so a retried task never creates twice. It never binds a service to another team's
 * component: an `entityRef` already in the catalog must be owned by the team's Group, wherever it is defined (a
 * 403 naming the owner otherwise; the check runs before anything is created or previewed).
 *
 * @public
 */
export function createServiceCreateAction(options: {
  discovery: DiscoveryService;
  auth: AuthService;
  catalog: CatalogService;
  localCatalog?: LocalCatalogDirectory;
}) {
  const client = new GpuBackendClient(options);
  return createTemplateAction({
    id: ID,
    description:
      'Creates a GPU model service (quota reserved, manifests applied or rendered) and outputs its id, status, ' +
      'namespace, endpoint and the catalog annotations; in a dry run, what would be created',
    examples,
    supportsDryRun: true,
    schema: {
      input: inputFields,
      output: {
        ...statusOutputFields,
        endpoint: z =>
          z
            .string()
            .describe(
              "Cluster-internal URL of the OpenAI-compatible (vLLM) or Ollama endpoint; for a service that scales to zero through KEDA's HTTP add-on, the interceptor's URL, which wakes it",
            ),
        endpointHost: z =>
          z
            .string()
            .optional()
            .describe(
              'The Host header to call the endpoint with, when it is the HTTP add-on interceptor (it routes by host)',
            ),
        tier: z => z.string().describe('GPU sharing tier the service got'),
        pool: z => z.string().describe('GPU pool the service got'),
        monthlyCost: z =>
          z.string().describe('Projected monthly cost, e.g. $587.50'),
        annotations: z =>
          z
            .record(z.string())
            .describe(
              'Entity annotations for catalog-info.yaml: backstage.io/kubernetes-id, backstage.io/kubernetes-namespace, gpu.backstage.io/service-id',
            ),
        entityRef: z =>
          z.string().describe('Catalog entity the service belongs to'),
        request: z =>
          z
            .record(z.unknown())
            .describe(
              'The service request as the backend normalised it (for gpu:service:render in a dry run)',
            ),
      },
    },
    async handler(ctx) {
      const input = parseActionInput(ID, inputFields, ctx.input);
      const entityRef = normaliseEntityRef(ID, input.entityRef ?? input.name);
      const teamGroup = teamGroupRef(input.team);
      if (input.owner !== undefined) {
        assertOwnerIsTeam(input.owner, input.team, teamGroup);
      }
      const body = {
        request: toServiceRequest(input),
        entityRef,
        ...(input.mode ? { mode: input.mode } : {}),
        ...(input.provisional ? { provisional: true } : {}),
      };
      const credentials = await ctx.getInitiatorCredentials();
      await assertNoTakeover({
        catalog: options.catalog,
        localCatalog: options.localCatalog,
        entityRef,
        ownerGroup: teamGroup,
        credentials,
      });

      if (ctx.isDryRun) {
        const preview = await client.previewService(body, { credentials });
        if (
          preview.status === 'pending-approval' &&
          input.whenPendingApproval === 'fail'
        ) {
          throw new InputError(
            `${input.name} would need approval (${preview.statusReason}); choose an option the policy allows`,
          );
        }
        ctx.logger.info(
          `Dry run: would create ${preview.name} in ${preview.namespace} on ${preview.placement.tier}/${preview.placement.pool} (${preview.status}); ${preview.manifests.length} object(s) rendered`,
        );
        writeOutputs(ctx.output, outputsOf(preview));
        return;
      }

      const requestKey = `scaffolder:${ctx.task.id}:${entityRef}`;
      const service = (await ctx.checkpoint({
        key: `${ID}:${entityRef}`,
        fn: async () =>
          (await client.createService(
            { ...body, requestKey },
            { credentials },
          )) as any,
      })) as GpuServiceView;

      if (service.status === 'rejected') {
        throw new ConflictError(
          `The request for ${service.name} was rejected: ${
            service.approval?.comment ??
            service.statusReason ??
            'no reason given'
          }; nothing is reserved`,
        );
      }
      if (service.status === 'failed') {
        // Give the quota back so a failed step leaves nothing held, then report why.
        await client.deleteService(service.id, { credentials });
        throw new Error(
          `Deploying ${service.name} failed: ${service.statusReason}; the service was torn down and its quota released`,
        );
      }
      if (service.status === 'pending-approval') {
        if (input.whenPendingApproval === 'fail') {
          await client.deleteService(service.id, { credentials });
          throw new InputError(
            `${service.name} needs approval (${service.statusReason}); the request was withdrawn, nothing is reserved`,
          );
        }
        ctx.logger.warn(
          `${service.name} waits for approval by the platform team: ${service.statusReason}. It is deployed once approved.`,
        );
      } else {
        ctx.logger.info(
          `Created ${service.name} (${service.id}) in ${service.namespace} on ${service.placement.tier}/${service.placement.pool}: ${service.status} (${service.mode})`,
        );
      }
      writeOutputs(ctx.output, outputsOf(service));
    },
  });
}
