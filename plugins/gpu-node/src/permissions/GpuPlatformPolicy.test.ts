import {
  AuthorizeResult,
  createPermission,
  PolicyDecision,
} from '@backstage/plugin-permission-common';
import {
  createConditionAuthorizer,
  PolicyQueryUser,
} from '@backstage/plugin-permission-node';
import {
  gpuApprovePermission,
  gpuQuotaReadPermission,
  gpuQuotaUpdatePermission,
  gpuServiceCreatePermission,
  gpuServiceDeletePermission,
  gpuServiceReadPermission,
  gpuServiceUpdatePermission,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { GpuPlatformPolicy } from './GpuPlatformPolicy';
import { GpuServiceResource } from './gpuServiceResource';
import { gpuServicePermissionRules } from './rules';

const policy = new GpuPlatformPolicy({
  platformGroups: ['group:default/platform-team'],
});
const isAllowed = createConditionAuthorizer<GpuServiceResource, unknown>(
  Object.values(gpuServicePermissionRules),
);

function user(name: string, groups: string[]): PolicyQueryUser {
  const userEntityRef = `user:default/${name}`;
  return {
    identity: {
      type: 'user',
      userEntityRef,
      ownershipEntityRefs: [],
    },
    info: {
      userEntityRef,
      ownershipEntityRefs: [
        userEntityRef,
        ...groups.map(g => `group:default/${g}`),
      ],
    },
    credentials: {} as PolicyQueryUser['credentials'],
    token: 'token',
  } as PolicyQueryUser;
}

const alice = user('alice', ['platform-team']);
const bob = user('bob', ['ml-platform']);
const mlService: GpuServiceResource = {
  id: 's1',
  team: 'ml-platform',
  environment: 'production',
  pool: 'l4-ondemand',
  tier: 'dedicated',
};
const searchService: GpuServiceResource = { ...mlService, team: 'search' };

async function decide(
  permission: Parameters<GpuPlatformPolicy['handle']>[0]['permission'],
  who?: PolicyQueryUser,
): Promise<PolicyDecision> {
  return policy.handle({ permission }, who);
}

describe('GpuPlatformPolicy', () => {
  it('allows the platform team every gpu permission', async () => {
    for (const permission of [
      gpuServiceCreatePermission,
      gpuServiceReadPermission,
      gpuServiceUpdatePermission,
      gpuServiceDeletePermission,
      gpuQuotaReadPermission,
      gpuQuotaUpdatePermission,
      gpuApprovePermission,
    ]) {
      expect(await decide(permission, alice)).toEqual({
        result: AuthorizeResult.ALLOW,
      });
    }
  });

  it("lets a team member act on the team's services only, through the owning-team rule", async () => {
    for (const permission of [
      gpuServiceCreatePermission,
      gpuServiceReadPermission,
      gpuServiceUpdatePermission,
      gpuServiceDeletePermission,
    ]) {
      const decision = await decide(permission, bob);
      expect(decision).toMatchObject({
        result: AuthorizeResult.CONDITIONAL,
        pluginId: 'gpu',
        resourceType: 'gpu-service',
        conditions: { rule: 'IS_OWNING_TEAM_MEMBER' },
      });
      expect(isAllowed(decision, mlService)).toBe(true);
      expect(isAllowed(decision, searchService)).toBe(false);
      expect(isAllowed(decision, { team: 'ml-platform' })).toBe(true);
    }
  });

  it('denies others the platform permissions, and anyone without a user', async () => {
    for (const permission of [
      gpuQuotaReadPermission,
      gpuQuotaUpdatePermission,
      gpuApprovePermission,
    ]) {
      expect((await decide(permission, bob)).result).toBe(AuthorizeResult.DENY);
    }
    expect((await decide(gpuServiceReadPermission)).result).toBe(
      AuthorizeResult.DENY,
    );
  });

  it('matches platform groups case-insensitively, and leaves other plugins alone', async () => {
    const upper = user('ops', []);
    upper.info.ownershipEntityRefs.push('group:default/Platform-Team');
    expect((await decide(gpuApprovePermission, upper)).result).toBe(
      AuthorizeResult.ALLOW,
    );
    const other = createPermission({
      name: 'catalog.entity.read',
      attributes: { action: 'read' },
    });
    expect((await decide(other, bob)).result).toBe(AuthorizeResult.ALLOW);
  });
});
