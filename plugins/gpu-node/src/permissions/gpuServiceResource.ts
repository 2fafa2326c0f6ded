import { GPU_SERVICE_RESOURCE_TYPE } from '@gpu-platform/backstage-plugin-gpu-common';
import { createPermissionResourceRef } from '@backstage/plugin-permission-node';

/**
 * What the permission rules of a GPU model service look at. For a service being requested it is the request; for a
 * team-level read (a team's costs or audit) only `team` is set, and rules on the other fields do not match.
 *
 * @public
 */
export type GpuServiceResource = {
  /** Service id; absent for a service being requested and for a team-level read. */
  id?: string;
  /** Owning team (a group in the default namespace). */
  team: string;
  environment?: string;
  pool?: string;
  tier?: string;
};

/**
 * A query fragment a rule translates to: the services whose `property` is one of `values`.
 *
 * @public
 */
export type GpuServiceQuery = {
  property: 'team' | 'environment' | 'pool' | 'tier';
  values: string[];
};

/**
 * Identifies the `gpu-service` permission resource type of the `gpu` plugin.
 *
 * @public
 */
export const gpuServiceResourceRef = createPermissionResourceRef<
  GpuServiceResource,
  GpuServiceQuery
>().with({ pluginId: 'gpu', resourceType: GPU_SERVICE_RESOURCE_TYPE });
