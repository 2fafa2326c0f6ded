import {
  BackstageCredentials,
  resolveSafeChildPath,
  UserInfoService,
} from '@backstage/backend-plugin-api';
import { Entity } from '@backstage/catalog-model';
import { InputError } from '@backstage/errors';
import { CatalogService } from '@backstage/plugin-catalog-node';
import { createTemplateAction } from '@backstage/plugin-scaffolder-node';
import {
  isGpuDomainError,
  parseGroupEntityRef,
  parseServiceEntityRef,
} from '@gpu-platform/backstage-plugin-gpu-common';
import fs from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import yaml from 'yaml';
import { z as zod } from 'zod/v3';
import { LocalCatalogDirectory } from '../catalog/LocalCatalogDirectory';
import { GPU_SERVICE_ID_ANNOTATION } from '../catalog/serviceIdAnnotation';
import { assertMemberOf, assertNoTakeover } from '../catalog/teamOwnership';
import { examples } from './catalogRegister.examples';
import { parseActionInput } from './parseActionInput';

const ID = 'gpu:catalog:register';

const inputFields = {
  catalogInfoPath: (z: typeof zod) =>
    z
      .string()
      .default('catalog-info.yaml')
      .describe('Path of the catalog-info.yaml in the workspace'),
  waitForEntitySeconds: (z: typeof zod) =>
    z
      .number()
      .int()
      .min(0)
      .max(120)
      .default(30)
      .describe(
        'How long to wait for the catalog to show the entity, so the output link works right away',
      ),
};

/** How often the entity is looked up while waiting for the catalog. */
const POLL_MS = 500;

function safePath(workspacePath: string, relative: string) {
  try {
    return resolveSafeChildPath(workspacePath, relative);
  } catch {
    throw new InputError(
      `Invalid input to ${ID}: catalogInfoPath: '${relative}' is outside the workspace`,
    );
  }
}

async function readEntity(file: string, relative: string): Promise<Entity> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch {
    throw new InputError(
      `Invalid input to ${ID}: catalogInfoPath: ${relative} does not exist in the workspace`,
    );
  }
  const documents = yaml.parseAllDocuments(text);
  const entity = documents[0]?.toJS();
  if (documents.length !== 1 || !entity?.kind || !entity?.metadata?.name) {
    throw new InputError(
      `Invalid input to ${ID}: catalogInfoPath: ${relative} must hold exactly one entity`,
    );
  }
  return entity as Entity;
}

/**
 * The entity's ref (a Component, per the catalog-model's grammar) and its owning Group; `InputError` naming the
 * file and the field otherwise.
 */
function refAndOwnerOf(entity: Entity, relative: string) {
  const { kind, metadata } = entity;
  const namespace = metadata.namespace ?? 'default';
  try {
    if (
      typeof kind !== 'string' ||
      typeof metadata.name !== 'string' ||
      typeof namespace !== 'string'
    ) {
      throw new InputError(
        'kind, metadata.name and metadata.namespace must be strings',
      );
    }
    const ref = parseServiceEntityRef(`${kind}:${namespace}/${metadata.name}`, {
      field: 'kind:metadata.namespace/metadata.name',
    });
    const owner = parseGroupEntityRef(
      (entity.spec as { owner?: unknown } | undefined)?.owner,
      { field: 'spec.owner', defaultNamespace: namespace },
    );
    return { entityRef: ref.ref, ownerGroup: owner.ref };
  } catch (error) {
    if (isGpuDomainError(error) || (error as Error).name === 'InputError') {
      throw new InputError(
        `Invalid input to ${ID}: catalogInfoPath: ${relative}: ${
          (error as Error).message
        }`,
      );
    }
    throw error;
  }
}

/**
 * `gpu:catalog:register`: registers the workspace's catalog-info.yaml in the local catalog directory
 * (`scaffolder.gpu.catalogDirectory`, read by a `file` location of the catalog) and waits for the entity to appear.
 * It replaces `publish:*` plus `catalog:register` where no Git provider is configured.
 *
 * @public
 */
export function createCatalogRegisterAction(options: {
  catalog: CatalogService;
  userInfo: UserInfoService;
  localCatalog?: LocalCatalogDirectory;
}) {
  const { catalog, userInfo, localCatalog } = options;
  return createTemplateAction({
    id: ID,
    description:
      "Registers the workspace's catalog-info.yaml through the local catalog directory (setups without a Git provider) and waits until the catalog shows the entity",
    examples,
    supportsDryRun: true,
    schema: {
      input: inputFields,
      output: {
        entityRef: z => z.string().describe('Ref of the registered entity'),
      },
    },
    async handler(ctx) {
      const input = parseActionInput(ID, inputFields, ctx.input);
      if (!localCatalog) {
        throw new Error(
          `${ID} needs scaffolder.gpu.catalogDirectory and a catalog file location reading it; with a Git ` +
            'provider, publish the repository and use catalog:register instead',
        );
      }
      const file = safePath(ctx.workspacePath, input.catalogInfoPath);
      const entity = await readEntity(file, input.catalogInfoPath);
      const { entityRef, ownerGroup } = refAndOwnerOf(
        entity,
        input.catalogInfoPath,
      );
      const credentials = await ctx.getInitiatorCredentials();
      await assertMemberOf({ userInfo, credentials, groupRef: ownerGroup });
      const target = localCatalog.fileFor({
        kind: entity.kind,
        namespace: entity.metadata.namespace ?? 'default',
        name: entity.metadata.name,
      });

      // The catalog validates against url locations only; the file's URL stands in for its file location.
      const validation = await catalog.validateEntity(
        entity,
        `url:${pathToFileURL(target).href}`,
        {
          credentials,
        },
      );
      if (!validation.valid) {
        throw new InputError(
          `Invalid input to ${ID}: catalogInfoPath: ${entityRef} is not a valid entity: ${validation.errors
            .map(e => e.message)
            .join('; ')}`,
        );
      }
      // Another team's component is never taken over; the team's own is re-registered, or bound where it is defined.
      const existing = await assertNoTakeover({
        catalog,
        localCatalog,
        entityRef,
        ownerGroup,
        credentials,
      });
      if (existing && !existing.definedHere) {
        await bindInPlace(ctx, {
          catalog,
          entityRef,
          serviceId: entity.metadata.annotations?.[GPU_SERVICE_ID_ANNOTATION],
          credentials,
          waitForEntitySeconds: input.waitForEntitySeconds,
        });
        ctx.output('entityRef', entityRef);
        return;
      }
      if (ctx.isDryRun) {
        ctx.logger.info(`Dry run: would register ${entityRef} from ${target}`);
        ctx.output('entityRef', entityRef);
        return;
      }

      await ctx.checkpoint({
        key: `${ID}:${entityRef}`,
        fn: async () => {
          await localCatalog.writeEntity(entity, ownerGroup);
          await catalog.refreshEntity(localCatalog.locationEntityRef, {
            credentials,
          });
        },
      });
      ctx.logger.info(
        `Wrote ${target}; waiting for the catalog to show ${entityRef}`,
      );
      if (
        await waitForEntity(
          catalog,
          entityRef,
          credentials,
          input.waitForEntitySeconds,
          ctx.signal,
        )
      ) {
        ctx.logger.info(`${entityRef} is in the catalog`);
      } else {
        ctx.logger.warn(
          `${entityRef} is not in the catalog yet; it appears when the catalog next reads ${localCatalog.locationTarget}`,
        );
      }
      ctx.output('entityRef', entityRef);
    },
  });
}

/**
 * A team's component defined in another source (a repository's catalog-info.yaml, a config location) is not written
 * again: the GPU service is bound to it by its ref, and the catalog's GPU service binding processor gives it the
 * service id annotation when it processes it next. This asks the catalog to do so now and waits until it shows the
 * annotation, or says when it will.
 */
async function bindInPlace(
  ctx: {
    isDryRun?: boolean;
    logger: { info(message: string): void; warn(message: string): void };
    signal?: AbortSignal;
  },
  options: {
    catalog: CatalogService;
    entityRef: string;
    serviceId?: string;
    credentials: BackstageCredentials;
    waitForEntitySeconds: number;
  },
): Promise<void> {
  const { catalog, entityRef, serviceId, credentials } = options;
  if (ctx.isDryRun) {
    ctx.logger.info(
      `Dry run: ${entityRef} is the team's, defined outside the GPU templates' catalog directory; it would be bound as it is`,
    );
    return;
  }
  await catalog.refreshEntity(entityRef, { credentials });
  const deadline = Date.now() + options.waitForEntitySeconds * 1000;
  for (;;) {
    const entity = await catalog.getEntityByRef(entityRef, { credentials });
    const bound = entity?.metadata.annotations?.[GPU_SERVICE_ID_ANNOTATION];
    if (bound && (!serviceId || bound === serviceId)) {
      ctx.logger.info(
        `${entityRef} is the team's own component: bound as it is, with ${GPU_SERVICE_ID_ANNOTATION}: ${bound}`,
      );
      return;
    }
    if (Date.now() >= deadline || ctx.signal?.aborted) {
      ctx.logger.warn(
        `${entityRef} is the team's own component, bound as it is; the catalog shows its GPU card once it processes the entity again`,
      );
      return;
    }
    await sleep(POLL_MS);
  }
}

async function waitForEntity(
  catalog: CatalogService,
  entityRef: string,
  credentials: BackstageCredentials,
  seconds: number,
  signal?: AbortSignal,
): Promise<boolean> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    if (await catalog.getEntityByRef(entityRef, { credentials })) {
      return true;
    }
    if (Date.now() >= deadline || signal?.aborted) {
      return false;
    }
    await sleep(POLL_MS);
  }
}
