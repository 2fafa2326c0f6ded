import {
  AuthorizeResult,
  isResourcePermission,
  PolicyDecision,
} from '@backstage/plugin-permission-common';
import {
  PermissionPolicy,
  PolicyQuery,
  PolicyQueryUser,
} from '@backstage/plugin-permission-node';
import {
  GPU_SERVICE_RESOURCE_TYPE,
  gpuPermissions,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  createGpuServiceConditionalDecision,
  gpuServiceConditions,
} from './conditions';
import { decideAppPermission } from './appPermissionDecisions';

const GPU_PERMISSION_NAMES = new Set(gpuPermissions.map(p => p.name));

/**
 * A permission policy for the gpu plugin, ready to install (the demo app does, with `gpu.permissions.platformGroups`)
 * or to delegate to from an app's own policy for `gpu.*` permissions.
 *
 * GPU permissions: members of the platform groups may do everything (approve, change quotas and budgets, act on any
 * team's service, read every team's costs and audit); other users may request, read, change, retry and delete the
 * services of teams they belong to (the `gpu-service` rule IS_OWNING_TEAM_MEMBER on their ownership claims) and
 * nothing platform-wide. Quoting and reading the platform need no permission, only a signed-in user. Nobody approves
 * their own request whatever a policy says: the gpu backend refuses it.
 *
 * Other plugins' permissions: the platform groups may do everything; other signed-in users read and cancel the
 * scaffolder tasks they created, delete the catalog entities they own, do everything else except use the Kubernetes
 * proxy, read Kubernetes objects through the plugin-wide permission, or delete catalog locations; callers without a
 * user are denied (see `decideAppPermission`). Safe to install as an app's policy; an app with its own rules for
 * other plugins calls this policy for the permissions whose names start with `gpu.` only.
 *
 * @public
 */
export class GpuPlatformPolicy implements PermissionPolicy {
  private readonly platformGroups: Set<string>;

  constructor(options: { platformGroups: string[] }) {
    this.platformGroups = new Set(
      options.platformGroups.map(g => g.toLocaleLowerCase('en-US')),
    );
  }

  async handle(
    request: PolicyQuery,
    user?: PolicyQueryUser,
  ): Promise<PolicyDecision> {
    const { permission } = request;
    const claims = user?.info.ownershipEntityRefs ?? [];
    if (
      claims.some(c => this.platformGroups.has(c.toLocaleLowerCase('en-US')))
    ) {
      return { result: AuthorizeResult.ALLOW };
    }
    if (!GPU_PERMISSION_NAMES.has(permission.name)) {
      return decideAppPermission(permission, user);
    }
    if (user && isResourcePermission(permission, GPU_SERVICE_RESOURCE_TYPE)) {
      return createGpuServiceConditionalDecision(
        permission,
        gpuServiceConditions.isOwningTeamMember({ claims }),
      );
    }
    return { result: AuthorizeResult.DENY };
  }
}
