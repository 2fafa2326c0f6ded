import {
  resolveSafeChildPath,
  UserInfoService,
} from '@backstage/backend-plugin-api';
import {
  ANNOTATION_LOCATION,
  ANNOTATION_ORIGIN_LOCATION,
  componentEntityV1alpha1Validator,
  Entity,
  makeValidator,
  parseEntityRef,
  stringifyEntityRef,
} from '@backstage/catalog-model';
import { InputError } from '@backstage/errors';
import { createTemplateAction } from '@backstage/plugin-scaffolder-node';
import {
  isGpuDomainError,
  parseGroupEntityRef,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { isDeepStrictEqual } from 'node:util';
import fs from 'node:fs/promises';
import path from 'node:path';
import yaml from 'yaml';
import { z as zod } from 'zod/v3';
import { assertMemberOf } from '../catalog/teamOwnership';
import { examples } from './catalogWrite.examples';
import { parseActionInput } from './parseActionInput';

const ID = 'gpu:catalog:write';

/** A short lower-case word such as `service` or `production` (Component `spec.type` and `spec.lifecycle`). */
const WORD = /^[a-z0-9]+([-_.][a-z0-9]+)*$/;

const inputFields = {
  name: (z: typeof zod) =>
    z
      .string()
      .describe(
        "metadata.name of the Component, e.g. summariser (the catalog-model's rule: at most 63 letters, digits, '-', '_' and '.')",
      ),
  owner: (z: typeof zod) =>
    z
      .string()
      .describe(
        "spec.owner: the owning team's Group ref, e.g. group:default/ml-platform; the user running the template must be a member",
      ),
  description: (z: typeof zod) =>
    z.string().max(1000).optional().describe('metadata.description, any text'),
  type: (z: typeof zod) =>
    z
      .string()
      .max(63)
      .regex(WORD, 'must be a lower-case word such as service')
      .default('service')
      .describe('spec.type'),
  lifecycle: (z: typeof zod) =>
    z
      .string()
      .max(63)
      .regex(WORD, 'must be a lower-case word such as production')
      .default('experimental')
      .describe('spec.lifecycle, e.g. experimental or production'),
  system: (z: typeof zod) =>
    z
      .string()
      .max(253)
      .optional()
      .describe('spec.system: a System ref, e.g. model-serving'),
  tags: (z: typeof zod) =>
    z
      .array(z.string())
      .max(20)
      .default([])
      .describe(
        "metadata.tags (the catalog-model's tag rule), e.g. [gpu, vllm]",
      ),
  annotations: (z: typeof zod) =>
    z
      .record(z.string())
      .default({})
      .describe(
        'metadata.annotations, e.g. the annotations output of gpu:service:create',
      ),
  links: (z: typeof zod) =>
    z
      .array(
        z.object({
          url: z.string().max(2048),
          title: z.string().max(200).optional(),
        }),
      )
      .max(10)
      .default([])
      .describe(
        'metadata.links (http or https URLs), e.g. the service endpoint',
      ),
  targetPath: (z: typeof zod) =>
    z
      .string()
      .default('catalog-info.yaml')
      .describe('Where to write the file in the workspace'),
};

type Input = ReturnType<typeof parse>;
function parse(input: unknown) {
  return parseActionInput(ID, inputFields, input);
}

const validators = makeValidator();

/** Annotations the catalog sets itself from the location it reads an entity from. */
const RESERVED_ANNOTATIONS = [ANNOTATION_LOCATION, ANNOTATION_ORIGIN_LOCATION];

function invalid(field: string, why: string): InputError {
  return new InputError(`Invalid input to ${ID}: ${field}: ${why}`);
}

function quote(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}...` : value);
}

function systemRefOf(system: string): string {
  let ref;
  try {
    ref = parseEntityRef(system, {
      defaultKind: 'system',
      defaultNamespace: 'default',
    });
  } catch (error) {
    throw invalid('system', `${quote(system)}: ${(error as Error).message}`);
  }
  if (
    ref.kind.toLocaleLowerCase('en-US') !== 'system' ||
    !validators.isValidNamespace(ref.namespace) ||
    !validators.isValidEntityName(ref.name)
  ) {
    throw invalid(
      'system',
      `${quote(system)} is not a System ref (system:namespace/name)`,
    );
  }
  // As written: a bare name stays a bare name (the catalog resolves it in the entity's namespace).
  return system;
}

/**
 * The Component the inputs describe, every field checked with the catalog-model's rules; `InputError` naming the
 * field otherwise. The owner is written as its full Group ref.
 */
function componentOf(input: Input, ownerRef: string): Entity {
  if (!validators.isValidEntityName(input.name)) {
    throw invalid(
      'name',
      `${quote(
        input.name,
      )} is not a valid entity name (letters, digits, '-', '_' and '.', starting and ending with a letter or digit, at most 63 characters)`,
    );
  }
  const badTag = input.tags.find(t => !validators.isValidTag(t));
  if (badTag !== undefined) {
    throw invalid(
      'tags',
      `${quote(
        badTag,
      )} is not a valid tag (lower-case letters, digits, ':', '+', '#' and single dashes, at most 63 characters)`,
    );
  }
  for (const [key, value] of Object.entries(input.annotations)) {
    if (!validators.isValidAnnotationKey(key)) {
      throw invalid('annotations', `${quote(key)} is not a valid key`);
    }
    if (RESERVED_ANNOTATIONS.includes(key)) {
      throw invalid('annotations', `${key} is set by the catalog itself`);
    }
    if (!validators.isValidAnnotationValue(value)) {
      throw invalid('annotations', `${key}: not a valid value`);
    }
  }
  for (const link of input.links) {
    let url: URL | undefined;
    try {
      url = new URL(link.url);
    } catch {
      url = undefined;
    }
    if (!url || !['http:', 'https:'].includes(url.protocol)) {
      throw invalid('links', `${quote(link.url)} is not an http(s) URL`);
    }
  }
  const tags = [...new Set(input.tags)];
  const description = input.description?.trim();
  return {
    apiVersion: 'backstage.io/v1alpha1',
    kind: 'Component',
    metadata: {
      name: input.name,
      ...(description ? { description } : {}),
      ...(Object.keys(input.annotations).length
        ? { annotations: { ...input.annotations } }
        : {}),
      ...(tags.length ? { tags } : {}),
      ...(input.links.length
        ? {
            links: input.links.map(l => ({
              url: l.url,
              ...(l.title ? { title: l.title } : {}),
            })),
          }
        : {}),
    },
    spec: {
      type: input.type,
      lifecycle: input.lifecycle,
      owner: ownerRef,
      ...(input.system ? { system: systemRefOf(input.system) } : {}),
    },
  };
}

/**
 * `gpu:catalog:write`: writes a Component's catalog-info.yaml into the workspace from structured inputs, serialised
 * with the `yaml` library (never by templating text, so no input can add keys or documents), after checking every
 * field with the catalog-model's rules and that the owner is a Group the user running the template belongs to.
 * In a dry run it writes the file too (the workspace is all it touches).
 *
 * @public
 */
export function createCatalogWriteAction(options: {
  userInfo: UserInfoService;
}) {
  const { userInfo } = options;
  return createTemplateAction({
    id: ID,
    description:
      "Writes a Component's catalog-info.yaml into the workspace from structured inputs (validated, serialised " +
      'with a YAML library); the owner must be a Group of the user running the template',
    examples,
    supportsDryRun: true,
    schema: {
      input: inputFields,
      output: {
        entityRef: z =>
          z
            .string()
            .describe(
              'Ref of the Component, e.g. component:default/summariser',
            ),
        catalogInfoPath: z =>
          z
            .string()
            .describe(
              'Path of the written file in the workspace (the catalogInfoPath of gpu:catalog:register)',
            ),
      },
    },
    async handler(ctx) {
      const input = parse(ctx.input);
      let owner;
      try {
        owner = parseGroupEntityRef(input.owner, { field: 'owner' });
      } catch (error) {
        if (isGpuDomainError(error)) {
          throw new InputError(
            `Invalid input to ${ID}: ${(error as Error).message}`,
          );
        }
        throw error;
      }
      const entity = componentOf(input, owner.ref);
      let file: string;
      try {
        file = resolveSafeChildPath(ctx.workspacePath, input.targetPath);
      } catch {
        throw invalid(
          'targetPath',
          `${quote(input.targetPath)} is outside the workspace`,
        );
      }
      if (!/\.ya?ml$/.test(file)) {
        throw invalid(
          'targetPath',
          `${quote(input.targetPath)} is not a .yaml file`,
        );
      }
      await assertMemberOf({
        userInfo,
        credentials: await ctx.getInitiatorCredentials(),
        groupRef: owner.ref,
      });

      const text = yaml.stringify(entity);
      // What a reader gets back is exactly the object built above: no input can add a key, a document or a tag.
      const documents = yaml.parseAllDocuments(text);
      if (
        documents.length !== 1 ||
        !isDeepStrictEqual(documents[0].toJS(), entity)
      ) {
        throw new Error(
          `${ID}: the serialised catalog-info does not read back as written`,
        );
      }
      await componentEntityV1alpha1Validator.check(entity);

      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, text, 'utf8');
      const entityRef = stringifyEntityRef(entity);
      ctx.logger.info(`Wrote ${input.targetPath} for ${entityRef}`);
      ctx.output('entityRef', entityRef);
      ctx.output('catalogInfoPath', input.targetPath);
    },
  });
}
