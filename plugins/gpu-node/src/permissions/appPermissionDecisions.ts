import {
  AuthorizeResult,
  isPermission,
  isResourcePermission,
  Permission,
  PolicyDecision,
} from '@backstage/plugin-permission-common';
import { PolicyQueryUser } from '@backstage/plugin-permission-node';
import {
  catalogConditions,
  createCatalogConditionalDecision,
} from '@backstage/plugin-catalog-backend/alpha';
import {
  catalogEntityDeletePermission,
  catalogLocationDeletePermission,
} from '@backstage/plugin-catalog-common/alpha';
import {
  createScaffolderTaskConditionalDecision,
  scaffolderTaskConditions,
} from '@backstage/plugin-scaffolder-backend/alpha';
import {
  taskCancelPermission,
  taskReadPermission,
} from '@backstage/plugin-scaffolder-common/alpha';
import {
  kubernetesProxyPermission,
  kubernetesResourcesReadPermission,
} from '@backstage/plugin-kubernetes-common';

/**
 * What {@link GpuPlatformPolicy} decides for a permission of another plugin, for a caller outside the platform
 * groups (those are allowed everything):
 *
 * - `kubernetes.proxy` and `kubernetes.resources.read`: denied. Both are plugin-wide permissions without a resource,
 *   so they cannot be narrowed to a team's namespaces or entities: the proxy passes any request to the cluster's
 *   API, and the objects routes read the objects of any entity. Owners read their own entities' objects, and a
 *   team's members read their team's namespaces through the proxy, through a module that checks ownership itself
 *   (packages/backend `kubernetesOwnedObjectsModule`).
 * - `scaffolder.task.read` and `scaffolder.task.cancel`: the tasks the caller created (`IS_TASK_OWNER`).
 * - `catalog.entity.delete`: the entities the caller owns, through a team or directly (`IS_ENTITY_OWNER`).
 * - `catalog.location.delete`: denied (it removes every entity of the location, whoever owns them).
 * - everything else: allowed to signed-in users, denied to callers without a user.
 */
export function decideAppPermission(
  permission: Permission,
  user: PolicyQueryUser | undefined,
): PolicyDecision {
  if (!user) {
    return { result: AuthorizeResult.DENY };
  }
  if (
    isPermission(permission, kubernetesProxyPermission) ||
    isPermission(permission, kubernetesResourcesReadPermission) ||
    isPermission(permission, catalogLocationDeletePermission)
  ) {
    return { result: AuthorizeResult.DENY };
  }
  if (
    isResourcePermission(permission, 'scaffolder-task') &&
    (isPermission(permission, taskReadPermission) ||
      isPermission(permission, taskCancelPermission))
  ) {
    return createScaffolderTaskConditionalDecision(
      permission,
      scaffolderTaskConditions.isTaskOwner({
        createdBy: [user.info.userEntityRef],
      }),
    );
  }
  if (
    isResourcePermission(permission, 'catalog-entity') &&
    isPermission(permission, catalogEntityDeletePermission)
  ) {
    return createCatalogConditionalDecision(
      permission,
      catalogConditions.isEntityOwner({
        claims: user.info.ownershipEntityRefs,
      }),
    );
  }
  return { result: AuthorizeResult.ALLOW };
}
