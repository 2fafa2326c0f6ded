import { createPermission } from '@backstage/plugin-permission-common';

/**
 * The permission resource type of a GPU model service. Its resource permissions can be granted conditionally with
 * the rules of `@gpu-platform/backstage-plugin-gpu-node` (`gpuServiceConditions`), e.g. "is a member of the owning team".
 *
 * @public
 */
export const GPU_SERVICE_RESOURCE_TYPE = 'gpu-service';

/**
 * Request a GPU model service for a team (reserves quota, applies manifests). Resource permission: the conditions
 * apply to the requested service (its team, environment, pool and tier) before it exists.
 *
 * @public
 */
export const gpuServiceCreatePermission = createPermission({
  name: 'gpu.service.create',
  attributes: { action: 'create' },
  resourceType: GPU_SERVICE_RESOURCE_TYPE,
});

/**
 * Read a GPU model service with its manifests, cluster status, usage, cost and audit trail; on a team
 * (`resourceRef` omitted, conditions applied to the team), read that team's costs and audit.
 *
 * @public
 */
export const gpuServiceReadPermission = createPermission({
  name: 'gpu.service.read',
  attributes: { action: 'read' },
  resourceType: GPU_SERVICE_RESOURCE_TYPE,
});

/**
 * Change (tier, pool, replicas, model) or retry applying a GPU model service.
 *
 * @public
 */
export const gpuServiceUpdatePermission = createPermission({
  name: 'gpu.service.update',
  attributes: { action: 'update' },
  resourceType: GPU_SERVICE_RESOURCE_TYPE,
});

/**
 * Tear down a GPU model service and release its quota.
 *
 * @public
 */
export const gpuServiceDeletePermission = createPermission({
  name: 'gpu.service.delete',
  attributes: { action: 'delete' },
  resourceType: GPU_SERVICE_RESOURCE_TYPE,
});

/**
 * Read the platform-wide view: every team's quota use, costs, waste and audit, and cluster drift.
 *
 * @public
 */
export const gpuQuotaReadPermission = createPermission({
  name: 'gpu.quota.read',
  attributes: { action: 'read' },
});

/**
 * Change team quotas and budgets.
 *
 * @public
 */
export const gpuQuotaUpdatePermission = createPermission({
  name: 'gpu.quota.update',
  attributes: { action: 'update' },
});

/**
 * Approve or reject a request outside policy (forbidden tier, over quota or budget, too many dedicated GPUs,
 * production on spot). Nobody decides their own request, whatever the policy says.
 *
 * @public
 */
export const gpuApprovePermission = createPermission({
  name: 'gpu.request.approve',
  attributes: { action: 'update' },
});

/**
 * The resource permissions of a GPU model service.
 *
 * @public
 */
export const gpuServicePermissions = [
  gpuServiceCreatePermission,
  gpuServiceReadPermission,
  gpuServiceUpdatePermission,
  gpuServiceDeletePermission,
];

/**
 * Every permission of the gpu plugin.
 *
 * @public
 */
export const gpuPermissions = [
  ...gpuServicePermissions,
  gpuQuotaReadPermission,
  gpuQuotaUpdatePermission,
  gpuApprovePermission,
];
