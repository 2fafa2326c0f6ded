import { createConditionExports } from '@backstage/plugin-permission-node';
import { gpuServiceResourceRef } from './gpuServiceResource';
import { gpuServicePermissionRules } from './rules';

const { conditions, createConditionalDecision } = createConditionExports({
  resourceRef: gpuServiceResourceRef,
  rules: gpuServicePermissionRules,
});

/**
 * Condition factories of the `gpu-service` resource type, for permission policies, e.g.
 * `gpuServiceConditions.isOwningTeamMember({ claims: user.info.ownershipEntityRefs })`.
 *
 * @public
 */
export const gpuServiceConditions = conditions;

/**
 * Wraps `gpuServiceConditions` into a conditional decision for one of the `gpu-service` permissions.
 *
 * @public
 */
export const createGpuServiceConditionalDecision = createConditionalDecision;
