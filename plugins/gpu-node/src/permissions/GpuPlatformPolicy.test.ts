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
import {
  catalogEntityDeletePermission,
  catalogEntityReadPermission,
  catalogLocationDeletePermission,
} from '@backstage/plugin-catalog-common/alpha';
import {
  kubernetesClustersReadPermission,
  kubernetesProxyPermission,
  kubernetesResourcesReadPermission,
} from '@backstage/plugin-kubernetes-common';
import {
  taskCancelPermission,
  taskCreatePermission,
  taskReadPermission,
} from '@backstage/plugin-scaffolder-common/alpha';
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

  it('matches platform groups case-insensitively', async () => {
    const upper = user('ops', []);
    upper.info.ownershipEntityRefs.push('group:default/Platform-Team');
    expect((await decide(gpuApprovePermission, upper)).result).toBe(
      AuthorizeResult.ALLOW,
    );
    expect((await decide(kubernetesProxyPermission, upper)).result).toBe(
      AuthorizeResult.ALLOW,
    );
  });

  describe("other plugins' permissions", () => {
    it('keeps the Kubernetes proxy and plugin-wide object reads to the platform team', async () => {
      for (const permission of [
        kubernetesProxyPermission,
        kubernetesResourcesReadPermission,
      ]) {
        expect(await decide(permission, alice)).toEqual({
          result: AuthorizeResult.ALLOW,
        });
        expect(await decide(permission, bob)).toEqual({
          result: AuthorizeResult.DENY,
        });
      }
      expect((await decide(kubernetesClustersReadPermission, bob)).result).toBe(
        AuthorizeResult.ALLOW,
      );
    });

    it('lets users read and cancel only the scaffolder tasks they created', async () => {
      for (const permission of [taskReadPermission, taskCancelPermission]) {
        expect(await decide(permission, alice)).toEqual({
          result: AuthorizeResult.ALLOW,
        });
        expect(await decide(permission, bob)).toEqual({
          result: AuthorizeResult.CONDITIONAL,
          pluginId: 'scaffolder',
          resourceType: 'scaffolder-task',
          conditions: {
            rule: 'IS_TASK_OWNER',
            resourceType: 'scaffolder-task',
            params: { createdBy: ['user:default/bob'] },
          },
        });
      }
      expect((await decide(taskCreatePermission, bob)).result).toBe(
        AuthorizeResult.ALLOW,
      );
    });

    it('lets users delete only the catalog entities they own, and no location', async () => {
      expect(await decide(catalogEntityDeletePermission, alice)).toEqual({
        result: AuthorizeResult.ALLOW,
      });
      expect(await decide(catalogEntityDeletePermission, bob)).toEqual({
        result: AuthorizeResult.CONDITIONAL,
        pluginId: 'catalog',
        resourceType: 'catalog-entity',
        conditions: {
          rule: 'IS_ENTITY_OWNER',
          resourceType: 'catalog-entity',
          params: {
            claims: ['user:default/bob', 'group:default/ml-platform'],
          },
        },
      });
      expect((await decide(catalogLocationDeletePermission, bob)).result).toBe(
        AuthorizeResult.DENY,
      );
      expect(
        (await decide(catalogLocationDeletePermission, alice)).result,
      ).toBe(AuthorizeResult.ALLOW);
    });

    it('allows the rest to signed-in users and nothing to callers without a user', async () => {
      const other = createPermission({
        name: 'search.query',
        attributes: { action: 'read' },
      });
      expect((await decide(other, bob)).result).toBe(AuthorizeResult.ALLOW);
      expect((await decide(catalogEntityReadPermission, bob)).result).toBe(
        AuthorizeResult.ALLOW,
      );
      for (const permission of [
        other,
        catalogEntityReadPermission,
        taskReadPermission,
        kubernetesClustersReadPermission,
      ]) {
        expect((await decide(permission)).result).toBe(AuthorizeResult.DENY);
      }
    });
  });
});
