import { createPermissionRule } from '@backstage/plugin-permission-node';
import { parseEntityRef } from '@backstage/catalog-model';
import { z } from 'zod';
import { gpuServiceResourceRef } from './gpuServiceResource';

/**
 * The team names (groups in the default namespace) among ownership claims such as `group:default/ml-platform`.
 *
 * @public
 */
export function teamsOfClaims(claims: string[]): string[] {
  const teams: string[] = [];
  for (const claim of claims) {
    try {
      const ref = parseEntityRef(claim);
      if (ref.kind === 'group' && ref.namespace === 'default') {
        teams.push(ref.name);
      }
    } catch {
      // Not an entity ref: it cannot name a team.
    }
  }
  return teams;
}

/**
 * Whether the owning team is among the caller's ownership claims (a member of the team). Policies pass
 * `user.info.ownershipEntityRefs` as `claims`.
 */
export const isOwningTeamMember = createPermissionRule({
  name: 'IS_OWNING_TEAM_MEMBER',
  description:
    'Allow services owned by a team among the given claims (the user is a member of the owning team)',
  resourceRef: gpuServiceResourceRef,
  paramsSchema: z.object({
    claims: z
      .array(z.string())
      .describe(
        'Ownership entity refs of the user, e.g. group:default/ml-platform',
      ),
  }),
  apply: (resource, { claims }) =>
    teamsOfClaims(claims).includes(resource.team),
  toQuery: ({ claims }) => ({
    property: 'team',
    values: teamsOfClaims(claims),
  }),
});

/** Whether the service belongs to one of the given teams. */
export const hasTeam = createPermissionRule({
  name: 'HAS_TEAM',
  description: 'Allow services of one of the given teams',
  resourceRef: gpuServiceResourceRef,
  paramsSchema: z.object({
    teams: z.array(z.string()).describe('Team names, e.g. ml-platform'),
  }),
  apply: (resource, { teams }) => teams.includes(resource.team),
  toQuery: ({ teams }) => ({ property: 'team', values: teams }),
});

/** Whether the service runs in one of the given environments (e.g. only dev for a sandbox role). */
export const isInEnvironment = createPermissionRule({
  name: 'IS_IN_ENVIRONMENT',
  description:
    'Allow services in one of the given environments (development, staging, production)',
  resourceRef: gpuServiceResourceRef,
  paramsSchema: z.object({
    environments: z.array(z.string()).describe('Environment names'),
  }),
  apply: (resource, { environments }) =>
    resource.environment !== undefined &&
    environments.includes(resource.environment),
  toQuery: ({ environments }) => ({
    property: 'environment',
    values: environments,
  }),
});

/** Whether the service is placed on one of the given pools. */
export const isOnPool = createPermissionRule({
  name: 'IS_ON_POOL',
  description: 'Allow services placed on one of the given GPU pools',
  resourceRef: gpuServiceResourceRef,
  paramsSchema: z.object({
    pools: z.array(z.string()).describe('Pool names, e.g. l4-ondemand'),
  }),
  apply: (resource, { pools }) =>
    resource.pool !== undefined && pools.includes(resource.pool),
  toQuery: ({ pools }) => ({ property: 'pool', values: pools }),
});

/** Whether the service uses one of the given sharing tiers. */
export const hasTier = createPermissionRule({
  name: 'HAS_TIER',
  description:
    'Allow services on one of the given sharing tiers (dedicated, mig, mps, time-sliced)',
  resourceRef: gpuServiceResourceRef,
  paramsSchema: z.object({
    tiers: z.array(z.string()).describe('Tier names'),
  }),
  apply: (resource, { tiers }) =>
    resource.tier !== undefined && tiers.includes(resource.tier),
  toQuery: ({ tiers }) => ({ property: 'tier', values: tiers }),
});

/**
 * The permission rules of the `gpu-service` resource type.
 *
 * @public
 */
export const gpuServicePermissionRules = {
  isOwningTeamMember,
  hasTeam,
  isInEnvironment,
  isOnPool,
  hasTier,
};
