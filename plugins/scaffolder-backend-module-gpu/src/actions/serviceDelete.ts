import {
  AuthService,
  BackstageCredentials,
  DiscoveryService,
} from '@backstage/backend-plugin-api';
import { InputError, NotFoundError } from '@backstage/errors';
import { CatalogService } from '@backstage/plugin-catalog-node';
import { createTemplateAction } from '@backstage/plugin-scaffolder-node';
import { GpuServiceView } from '@gpu-platform/backstage-plugin-gpu-common';
import { GpuBackendClient } from '@gpu-platform/backstage-plugin-gpu-node';
import { z as zod } from 'zod/v3';
import { LocalCatalogDirectory } from '../catalog/LocalCatalogDirectory';
import { unregisterEntity } from '../catalog/unregisterEntity';
import { normaliseEntityRef } from './normaliseEntityRef';
import { parseActionInput } from './parseActionInput';
import { examples } from './serviceDelete.examples';

const ID = 'gpu:service:delete';

const inputFields = {
  serviceId: (z: typeof zod) =>
    z.string().optional().describe('Id of the GPU service to delete'),
  entityRef: (z: typeof zod) =>
    z
      .string()
      .optional()
      .describe(
        'Catalog entity whose GPU service(s) to delete, e.g. component:default/summariser',
      ),
  unregister: (z: typeof zod) =>
    z
      .boolean()
      .default(false)
      .describe(
        'Also remove the entity (entityRef, or the one the service belongs to) from the catalog',
      ),
};

const LIVE = (s: GpuServiceView) =>
  s.status !== 'deleted' && s.status !== 'rejected';

/**
 * `gpu:service:delete`: tears a GPU model service down (objects deleted from the cluster, quota released), found by
 * id or by the catalog entity it belongs to, and optionally unregisters that entity. Idempotent: a service that is
 * already deleted counts as done. A GitOps service on a cluster the backend reads back is decommissioned instead: it
 * stays `deleting` (reason `AwaitingPrune`), its quota held, until the controller has pruned its objects once its
 * directory is removed from the repository; then the backend deletes it and releases the quota.
 *
 * @public
 */
export function createServiceDeleteAction(options: {
  discovery: DiscoveryService;
  auth: AuthService;
  catalog: CatalogService;
  localCatalog?: LocalCatalogDirectory;
}) {
  const client = new GpuBackendClient(options);

  async function findServices(
    input: { serviceId?: string; entityRef?: string },
    credentials: BackstageCredentials,
  ): Promise<GpuServiceView[]> {
    if (input.serviceId) {
      try {
        return [await client.getService(input.serviceId, { credentials })];
      } catch (error) {
        if (error instanceof NotFoundError) {
          throw new InputError(
            `Invalid input to ${ID}: serviceId: no GPU service with id ${input.serviceId}`,
          );
        }
        throw error;
      }
    }
    const { items } = await client.listServices(
      { entityRef: input.entityRef },
      { credentials },
    );
    return items;
  }

  return createTemplateAction({
    id: ID,
    description:
      'Deletes a GPU model service by id or catalog entity ref (cluster objects removed, quota released) and optionally unregisters the entity; deleting a deleted service succeeds',
    examples,
    supportsDryRun: true,
    schema: {
      input: inputFields,
      output: {
        deleted: z =>
          z
            .array(
              z.object({
                serviceId: z.string(),
                name: z.string(),
                namespace: z.string(),
                status: z.string(),
                statusReason: z.string().optional(),
                pool: z.string().optional(),
                gpuEquivalents: z
                  .number()
                  .optional()
                  .describe('GPU-equivalents it reserved'),
                monthlyCost: z
                  .string()
                  .optional()
                  .describe('Its projected monthly cost, e.g. $587.50'),
              }),
            )
            .describe(
              'The services this step deleted (empty when they were already deleted); a GitOps service whose cluster ' +
                'Backstage reads back is deleting (reason AwaitingPrune) until its controller has pruned its objects',
            ),
        alreadyDeleted: z =>
          z.boolean().describe('True when there was nothing left to delete'),
        awaitingPrune: z =>
          z
            .boolean()
            .describe(
              'True when a GitOps service stays deleting, its quota held, until the GitOps controller has pruned its ' +
                'objects from the cluster (remove its directory from the repository: gpu:gitea:pull-request with remove)',
            ),
        unregistered: z =>
          z
            .string()
            .describe(
              'removed, not-registered, kept (defined in a source the catalog keeps reading) or skipped',
            ),
      },
    },
    async handler(ctx) {
      const input = parseActionInput(ID, inputFields, ctx.input);
      if (!input.serviceId === !input.entityRef) {
        throw new InputError(
          `Invalid input to ${ID}: give exactly one of serviceId or entityRef`,
        );
      }
      const entityRef =
        input.entityRef && normaliseEntityRef(ID, input.entityRef);
      const credentials = await ctx.getInitiatorCredentials();
      const found = await findServices(
        { serviceId: input.serviceId, entityRef },
        credentials,
      );
      if (found.length === 0 && !input.unregister) {
        throw new InputError(
          `Invalid input to ${ID}: entityRef: no GPU service belongs to ${entityRef}`,
        );
      }
      const live = found.filter(LIVE);
      const catalogRef = entityRef ?? found[0]?.entityRef;

      if (ctx.isDryRun) {
        ctx.logger.info(
          `Dry run: would delete ${
            live.map(s => `${s.name} (${s.id})`).join(', ') || 'nothing'
          }${
            input.unregister && catalogRef
              ? ` and unregister ${catalogRef}`
              : ''
          }`,
        );
        ctx.output(
          'deleted',
          live.map(s => ({
            serviceId: s.id,
            name: s.name,
            namespace: s.namespace,
            status: 'deleted',
          })),
        );
        ctx.output('alreadyDeleted', live.length === 0);
        ctx.output('awaitingPrune', false);
        ctx.output('unregistered', 'skipped');
        return;
      }

      const deleted = [];
      let pruning = false;
      for (const service of live) {
        const result = (await ctx.checkpoint({
          key: `${ID}:${service.id}`,
          fn: async () =>
            (await client.deleteService(service.id, { credentials })) as any,
        })) as GpuServiceView;
        const awaitingPrune =
          result.status === 'deleting' && result.reason === 'AwaitingPrune';
        if (result.status !== 'deleted' && !awaitingPrune) {
          throw new Error(
            `Deleting ${result.name} (${result.id}) did not finish: ${result.status}, ${result.statusReason}; run the step again`,
          );
        }
        ctx.logger.info(
          `${awaitingPrune ? 'Decommissioning' : 'Deleted'} ${result.name} (${
            result.id
          }): ${result.statusReason}`,
        );
        if (awaitingPrune) pruning = true;
        deleted.push({
          serviceId: result.id,
          name: result.name,
          namespace: result.namespace,
          status: result.status,
          ...(result.statusReason ? { statusReason: result.statusReason } : {}),
          // What it held before this step (a released reservation no longer says).
          pool: service.placement.pool,
          gpuEquivalents: service.gpuEquivalents,
          monthlyCost: service.monthlyCost,
        });
      }
      if (live.length === 0) {
        ctx.logger.info(
          found.length
            ? `Nothing to delete: ${found
                .map(s => `${s.name} (${s.id}) is ${s.status}`)
                .join(', ')}`
            : `No GPU service belongs to ${entityRef}`,
        );
      }

      let unregistered = 'skipped';
      if (input.unregister && catalogRef) {
        unregistered = await ctx.checkpoint({
          key: `${ID}:unregister:${catalogRef}`,
          fn: () =>
            unregisterEntity({
              catalog: options.catalog,
              localCatalog: options.localCatalog,
              entityRef: catalogRef,
              credentials,
              logger: ctx.logger,
            }),
        });
      }
      ctx.output('deleted', deleted);
      ctx.output('alreadyDeleted', live.length === 0);
      ctx.output('awaitingPrune', pruning);
      ctx.output('unregistered', unregistered);
    },
  });
}
