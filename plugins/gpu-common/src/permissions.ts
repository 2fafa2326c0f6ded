import { createPermission } from '@backstage/plugin-permission-common';

/**
 * Create a GPU model service (reserves quota, applies manifests).
 *
 * @public
 */
export const gpuServiceCreatePermission = createPermission({
  name: 'gpu.service.create',
  attributes: { action: 'create' },
});

/**
 * Change a GPU model service (tier, size, replicas).
 *
 * @public
 */
export const gpuServiceUpdatePermission = createPermission({
  name: 'gpu.service.update',
  attributes: { action: 'update' },
});

/**
 * Tear down a GPU model service and release its quota.
 *
 * @public
 */
export const gpuServiceDeletePermission = createPermission({
  name: 'gpu.service.delete',
  attributes: { action: 'delete' },
});

/**
 * Read team quotas, their use, cost and waste (the governance page).
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
 * Approve or reject a request outside policy (forbidden tier, over quota or budget, too many dedicated GPUs).
 *
 * @public
 */
export const gpuApprovePermission = createPermission({
  name: 'gpu.request.approve',
  attributes: { action: 'update' },
});

/**
 * Every permission of the gpu plugin, for registration with the permission framework.
 *
 * @public
 */
export const gpuPermissions = [
  gpuServiceCreatePermission,
  gpuServiceUpdatePermission,
  gpuServiceDeletePermission,
  gpuQuotaReadPermission,
  gpuQuotaUpdatePermission,
  gpuApprovePermission,
];
