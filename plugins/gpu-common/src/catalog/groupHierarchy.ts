import { Entity } from '@backstage/catalog-model';
import { parseGroupEntityRef } from './entityRefs';

/**
 * A catalog Group as the cost roll-up needs it: its ref and the refs its spec names as parent and children.
 *
 * @public
 */
export interface CatalogGroup {
  /** Canonical ref, e.g. `group:default/ml-platform`. */
  ref: string;
  /** `spec.parent`, as a canonical ref. */
  parent?: string;
  /** `spec.children`, as canonical refs. */
  children: string[];
}

/**
 * Groups by ref with each group's parent, from both directions of the catalog's relation: a group's `spec.parent`,
 * or else the group whose `spec.children` names it.
 *
 * @public
 */
export interface GroupHierarchy {
  /** The parent of each group that has one. */
  parents: ReadonlyMap<string, string>;
  /** The children of each group that has some. */
  children: ReadonlyMap<string, readonly string[]>;
}

/**
 * A Group entity as a {@link CatalogGroup}: refs canonical (kind group and the entity's namespace where omitted, lower
 * case), a parent or child that is not a valid Group ref left out.
 *
 * @public
 */
export function catalogGroupOf(entity: Entity): CatalogGroup {
  const namespace = entity.metadata.namespace ?? 'default';
  const ref = (value: unknown) => {
    try {
      return parseGroupEntityRef(value, { defaultNamespace: namespace }).ref;
    } catch {
      return undefined;
    }
  };
  const spec = (entity.spec ?? {}) as { parent?: unknown; children?: unknown };
  const parent = spec.parent === undefined ? undefined : ref(spec.parent);
  const children = Array.isArray(spec.children)
    ? spec.children.map(ref).filter((c): c is string => c !== undefined)
    : [];
  return {
    ref: ref(`${namespace}/${entity.metadata.name}`) ?? '',
    ...(parent ? { parent } : {}),
    children,
  };
}

/**
 * The hierarchy of `groups`. A group named as child by one group and with another as `spec.parent` keeps its own
 * `spec.parent` (the catalog processes it that way too).
 *
 * @public
 */
export function groupHierarchy(
  groups: readonly CatalogGroup[],
): GroupHierarchy {
  const parents = new Map<string, string>();
  for (const group of groups) {
    for (const child of group.children) {
      if (child !== group.ref && !parents.has(child)) {
        parents.set(child, group.ref);
      }
    }
  }
  for (const group of groups) {
    if (group.parent && group.parent !== group.ref) {
      parents.set(group.ref, group.parent);
    }
  }
  const children = new Map<string, string[]>();
  for (const [child, parent] of parents) {
    const list = children.get(parent);
    if (list) list.push(child);
    else children.set(parent, [child]);
  }
  for (const list of children.values()) list.sort();
  return { parents, children };
}

/**
 * The ancestors of `ref`, nearest first, stopping before a group seen twice (a cycle in the catalog's data).
 *
 * @public
 */
export function groupAncestors(
  hierarchy: GroupHierarchy,
  ref: string,
): string[] {
  const seen = new Set([ref]);
  const result: string[] = [];
  for (
    let parent = hierarchy.parents.get(ref);
    parent !== undefined && !seen.has(parent);
    parent = hierarchy.parents.get(parent)
  ) {
    seen.add(parent);
    result.push(parent);
  }
  return result;
}

/**
 * A group's cost and the cost of its subtree (itself and every descendant group), in micro-dollars.
 *
 * @public
 */
export interface GroupRollUp {
  ref: string;
  parent?: string;
  /** The cost of the group's own team. */
  ownMicros: number;
  /** Its own cost plus that of every group below it. */
  totalMicros: number;
}

/**
 * Rolls costs up the hierarchy: every group with a cost, or a descendant with a cost, gets its own cost and the sum
 * over its subtree (each descendant counted once even where the catalog's data has a cycle). Sorted by total, largest
 * first, then by ref.
 *
 * @public
 */
export function rollUpGroupCosts(
  hierarchy: GroupHierarchy,
  ownCosts: ReadonlyMap<string, number>,
): GroupRollUp[] {
  const totals = new Map<string, number>();
  for (const [ref, micros] of ownCosts) {
    for (const group of [ref, ...groupAncestors(hierarchy, ref)]) {
      totals.set(group, (totals.get(group) ?? 0) + micros);
    }
  }
  return [...totals]
    .map(([ref, totalMicros]) => {
      const parent = hierarchy.parents.get(ref);
      return {
        ref,
        ...(parent ? { parent } : {}),
        ownMicros: ownCosts.get(ref) ?? 0,
        totalMicros,
      };
    })
    .sort(
      (a, b) => b.totalMicros - a.totalMicros || a.ref.localeCompare(b.ref),
    );
}
