import { ConfigReader } from '@backstage/config';
import {
  demoPlatformConfig,
  readPlatformConfig,
  TeamAllowance,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  renderKueueObjects,
  renderTeamQueueDependencies,
} from './renderKueueObjects';

const platform = readPlatformConfig(
  new ConfigReader({ gpu: demoPlatformConfig }),
);

const storedQuota: TeamAllowance = {
  team: 'search',
  // 2 GPUs of l4-ondemand in GPU units
  gpuUnits: { 'l4-ondemand': 2 * 5040 },
  monthlyBudgetMicros: 1_000_000_000,
};

function names(objects: { kind?: string; metadata?: { name?: string } }[]) {
  return objects.map(o => `${o.kind}/${o.metadata?.name}`);
}

describe('renderTeamQueueDependencies', () => {
  it('is the part of what the reconciler renders that one team queue needs, in apply order', () => {
    const all = renderKueueObjects(platform, [storedQuota]);
    const dependencies = renderTeamQueueDependencies(
      platform,
      [storedQuota],
      'search',
    );
    const rendered = new Map(names(all).map((name, i) => [name, all[i]]));
    for (const [i, name] of names(dependencies).entries()) {
      expect(dependencies[i]).toEqual(rendered.get(name));
    }
    const queue = dependencies.find(o => o.kind === 'ClusterQueue') as {
      metadata: { name: string };
      spec: {
        resourceGroups: {
          flavors: {
            name: string;
            resources: { name: string; nominalQuota: string }[];
          }[];
        }[];
      };
    };
    expect(queue.metadata.name).toBe('gpu-search');
    const flavors = queue.spec.resourceGroups.flatMap(g => g.flavors);
    // The stored quota, not app-config's, sets the nominal quota.
    expect(
      flavors
        .find(f => f.name === 'l4-ondemand')!
        .resources.find(r => r.name === 'nvidia.com/gpu')!.nominalQuota,
    ).toBe('2');
    expect(
      dependencies
        .filter(o => o.kind === 'ResourceFlavor')
        .map(o => o.metadata!.name)
        .sort(),
    ).toEqual(flavors.map(f => f.name).sort());
    const kinds = [...new Set(dependencies.map(o => o.kind))];
    expect(kinds).toEqual([
      'ResourceFlavor',
      'Cohort',
      'WorkloadPriorityClass',
      'ClusterQueue',
    ]);
    expect(names(dependencies)).not.toContain('ClusterQueue/gpu-ml-platform');
    for (const object of dependencies) {
      expect(object.metadata?.labels?.['gpu.backstage.io/scope']).toBe(
        'platform',
      );
      expect(object.metadata?.labels).not.toHaveProperty(
        'gpu.backstage.io/service-id',
      );
    }
  });

  it('names a team the platform does not have', () => {
    expect(() => renderTeamQueueDependencies(platform, [], 'nope')).toThrow(
      /team nope/,
    );
  });
});

describe('renderKueueObjects', () => {
  it('holds only Kueue objects, even with Karpenter pools and alerts configured (a service apply never sends NodePools or alert rules)', () => {
    const configured = readPlatformConfig(
      new ConfigReader({
        gpu: {
          ...demoPlatformConfig,
          karpenter: { consolidateAfter: '10m' },
          alerts: { scope: 'team' },
        },
      }),
    );
    const groups = new Set(
      renderKueueObjects(configured, []).map(o => o.apiVersion?.split('/')[0]),
    );
    expect([...groups]).toEqual(['kueue.x-k8s.io']);
  });
});
