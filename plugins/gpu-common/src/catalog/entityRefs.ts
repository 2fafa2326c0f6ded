import {
  CompoundEntityRef,
  makeValidator,
  parseEntityRef,
  stringifyEntityRef,
} from '@backstage/catalog-model';
import { GpuDomainError } from '../errors/GpuDomainError';

/**
 * Longest entity ref accepted (`kind:namespace/name`): a DNS subdomain's length; the catalog-model's own limits (63
 * characters for the name and the namespace) are checked as well.
 *
 * @public
 */
export const MAX_ENTITY_REF_LENGTH = 253;

/**
 * A validated, canonical entity ref: lower-case `kind`, `namespace` and `name` (the catalog compares refs
 * case-insensitively), and `ref`, the same as a string (`component:default/summariser`).
 *
 * @public
 */
export interface CanonicalEntityRef extends CompoundEntityRef {
  ref: string;
}

/**
 * The entity ref a GPU service is bound to: always a Component.
 *
 * @public
 */
export interface ServiceEntityRef extends CanonicalEntityRef {
  kind: 'component';
}

/**
 * The ref of a team's Group (`group:<namespace>/<name>`).
 *
 * @public
 */
export interface GroupEntityRef extends CanonicalEntityRef {
  kind: 'group';
}

const validators = makeValidator();

/** The value, quoted and shortened for an error message (it may be long or hold newlines). */
function quote(value: unknown): string {
  const text = typeof value === 'string' ? value : String(value);
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}...` : text);
}

function parseRefOfKind(
  value: unknown,
  kind: string,
  options: { field: string; defaultNamespace?: string },
): CanonicalEntityRef {
  const invalid = (why: string) =>
    new GpuDomainError(
      'INVALID_ENTITY_REF',
      `${options.field}: ${quote(value)} ${why}`,
    );
  if (typeof value !== 'string' || value.length === 0) {
    throw invalid(`is not an entity ref (expected ${kind}:namespace/name)`);
  }
  if (value.length > MAX_ENTITY_REF_LENGTH) {
    throw invalid(
      `is longer than ${MAX_ENTITY_REF_LENGTH} characters (${value.length})`,
    );
  }
  let parsed: CompoundEntityRef;
  try {
    parsed = parseEntityRef(value, {
      defaultKind: kind,
      defaultNamespace: options.defaultNamespace ?? 'default',
    });
  } catch (error) {
    throw invalid(`is not an entity ref: ${(error as Error).message}`);
  }
  if (parsed.kind.toLocaleLowerCase('en-US') !== kind) {
    throw invalid(
      `is of kind ${quote(
        parsed.kind,
      )}; only a ${kind} can be given here (${kind}:namespace/name)`,
    );
  }
  if (!validators.isValidNamespace(parsed.namespace)) {
    throw invalid(
      `has an invalid namespace ${quote(
        parsed.namespace,
      )} (lower-case letters, digits and dashes, at most 63 characters)`,
    );
  }
  if (!validators.isValidEntityName(parsed.name)) {
    throw invalid(
      `has an invalid name (letters, digits, '-', '_' and '.', starting and ending with a letter or digit, at most 63 characters)`,
    );
  }
  const canonical = {
    kind,
    namespace: parsed.namespace.toLocaleLowerCase('en-US'),
    name: parsed.name.toLocaleLowerCase('en-US'),
  };
  return { ...canonical, ref: stringifyEntityRef(canonical) };
}

/**
 * Validates the catalog entity a GPU service is bound to (`entityRef` of `POST /services` and of the scaffolder
 * actions) and returns it in canonical form. The grammar is the catalog-model's: `[kind:][namespace/]name`, parsed
 * with `parseEntityRef` (kind defaults to component, namespace to default), then the namespace and name checked with
 * the catalog-model's validators, the whole at most {@link MAX_ENTITY_REF_LENGTH} characters. Only a Component can
 * back a service.
 *
 * @throws GpuDomainError (an `InputError`, code `INVALID_ENTITY_REF`) naming `options.field` (default `entityRef`)
 * and what is wrong.
 * @example
 * parseServiceEntityRef('summariser').ref // 'component:default/summariser'
 * parseServiceEntityRef('Component:default/Summariser').ref // 'component:default/summariser'
 * parseServiceEntityRef('group:default/ml-platform') // throws: only a component
 * @public
 */
export function parseServiceEntityRef(
  value: unknown,
  options: { field?: string } = {},
): ServiceEntityRef {
  return parseRefOfKind(value, 'component', {
    field: options.field ?? 'entityRef',
  }) as ServiceEntityRef;
}

/**
 * Validates a Group ref (an entity's `spec.owner` as the GPU actions accept it), with the same grammar and limits as
 * {@link parseServiceEntityRef}; kind defaults to group and must be group, namespace defaults to
 * `options.defaultNamespace` or default.
 *
 * @throws GpuDomainError (an `InputError`, code `INVALID_ENTITY_REF`) naming `options.field` (default `owner`).
 * @public
 */
export function parseGroupEntityRef(
  value: unknown,
  options: { field?: string; defaultNamespace?: string } = {},
): GroupEntityRef {
  return parseRefOfKind(value, 'group', {
    field: options.field ?? 'owner',
    defaultNamespace: options.defaultNamespace,
  }) as GroupEntityRef;
}

/**
 * The Group ref of a platform team: `group:default/<team>` (what a user's ownership refs must contain to act for the
 * team, and what a team's catalog entities are owned by).
 *
 * @public
 */
export function teamGroupRef(team: string): string {
  return stringifyEntityRef({
    kind: 'group',
    namespace: 'default',
    name: team,
  });
}

/**
 * The Group that owns an entity: its `spec.owner` resolved like the catalog resolves it (kind group and the
 * entity's namespace when omitted); undefined when there is no owner or it is not a valid Group ref.
 *
 * @public
 */
export function ownerGroupOf(entity: {
  metadata: { namespace?: string };
  spec?: unknown;
}): string | undefined {
  const owner = (entity.spec as { owner?: unknown } | undefined)?.owner;
  try {
    return parseGroupEntityRef(owner, {
      defaultNamespace: entity.metadata.namespace ?? 'default',
    }).ref;
  } catch {
    return undefined;
  }
}
