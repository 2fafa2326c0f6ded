import {
  GpuDomainError,
  Platform,
  TeamQuota,
} from '@internal/backstage-plugin-gpu-common';
import {
  HOST_CPU_PER_GPU_UNIT,
  hostMemoryGiBPerGpuUnit,
} from '../hostResources';
import { ownershipLabels } from '../labels';
import { clusterQueueName } from '../names/queueNames';
import { poolResources } from './poolResources';
import { ClusterQueue, FlavorQuotas, ResourceGroup } from './types';

/** Kueue's limits on a ClusterQueue. */
const MAX_RESOURCE_GROUPS = 16;
const MAX_PER_GROUP = 64;

interface FlavorQuota {
  flavor: string;
  /** Resource name to whole units. */
  units: Map<string, number>;
  /** GPU memory behind one unit of each resource, GiB. */
  unitMemoryGiB: Map<string, number>;
}

/** Units of each resource a team's GPU-equivalent quota on a pool buys: floor(quota x units per GPU). */
function flavorQuotas(platform: Platform, team: TeamQuota): FlavorQuota[] {
  for (const poolName of Object.keys(team.gpuQuota)) {
    if (!platform.pools.some(p => p.name === poolName)) {
      throw new GpuDomainError(
        'UNKNOWN_POOL',
        `Team ${
          team.name
        } has quota on unknown pool ${poolName}; pools: ${platform.pools
          .map(p => p.name)
          .join(', ')}`,
        { allowed: platform.pools.map(p => p.name) },
      );
    }
  }
  return platform.pools
    .filter(pool => (team.gpuQuota[pool.name] ?? 0) > 0)
    .map(pool => {
      const gpuEquivalents = team.gpuQuota[pool.name];
      const units = new Map<string, number>();
      const unitMemoryGiB = new Map<string, number>();
      for (const resource of poolResources(platform, pool)) {
        // The epsilon keeps 0.3 x 10 from flooring to 2.
        units.set(
          resource.name,
          Math.floor(gpuEquivalents * resource.perGpu + 1e-9),
        );
        unitMemoryGiB.set(resource.name, resource.memoryGiB);
      }
      return { flavor: pool.name, units, unitMemoryGiB };
    });
}

/**
 * Flavors that share a resource name must be in one resource group (Kueue lets a resource be covered by only one
 * group), so groups are the connected components of "shares a resource", in pool order.
 */
function groupFlavors(quotas: FlavorQuota[]): FlavorQuota[][] {
  const shares = (a: FlavorQuota, b: FlavorQuota) =>
    [...a.units.keys()].some(resource => b.units.has(resource));
  const groups: FlavorQuota[][] = [];
  for (const quota of quotas) {
    const touching = groups.filter(group =>
      group.some(member => shares(member, quota)),
    );
    if (touching.length === 0) {
      groups.push([quota]);
      continue;
    }
    const [target, ...others] = touching;
    for (const other of others) {
      target.push(...other);
      groups.splice(groups.indexOf(other), 1);
    }
    target.push(quota);
  }
  return groups.map(group =>
    group.sort((a, b) => quotas.indexOf(a) - quotas.indexOf(b)),
  );
}

function toResourceGroup(group: FlavorQuota[]): ResourceGroup {
  const covered = [...new Set(group.flatMap(q => [...q.units.keys()]))].sort();
  return {
    coveredResources: covered,
    flavors: group.map(q => ({
      name: q.flavor,
      resources: covered.map(name => ({
        name,
        nominalQuota: String(q.units.get(name) ?? 0),
      })),
    })),
  };
}

function hostResourceGroup(
  quotas: FlavorQuota[],
  flavor: string,
): ResourceGroup {
  let cpu = 0;
  let memoryGiB = 0;
  for (const quota of quotas) {
    for (const [name, units] of quota.units) {
      cpu += units * HOST_CPU_PER_GPU_UNIT;
      memoryGiB +=
        units * hostMemoryGiBPerGpuUnit(quota.unitMemoryGiB.get(name)!);
    }
  }
  const flavors: FlavorQuotas[] = [
    {
      name: flavor,
      resources: [
        { name: 'cpu', nominalQuota: String(cpu) },
        { name: 'memory', nominalQuota: `${memoryGiB}Gi` },
      ],
    },
  ];
  return { coveredResources: ['cpu', 'memory'], flavors };
}

/**
 * The ClusterQueue of a team: admits workloads from the team's namespaces, with a nominal quota per pool flavor
 * derived from the team's GPU-equivalent quota, and (unless `hostFlavor` is `false`) a cpu/memory group sized so
 * that the GPU quota, not the host quota, is what binds.
 */
export function renderClusterQueue(
  platform: Platform,
  team: TeamQuota,
  hostFlavor: string | false,
): ClusterQueue {
  if (team.namespaces.length === 0) {
    throw new GpuDomainError(
      'INVALID_CONFIG',
      `Team ${team.name} has no namespaces; a team needs at least one namespace for its ClusterQueue to admit from`,
    );
  }
  const quotas = flavorQuotas(platform, team);
  const resourceGroups = groupFlavors(quotas).map(toResourceGroup);
  if (hostFlavor !== false && resourceGroups.length > 0) {
    resourceGroups.push(hostResourceGroup(quotas, hostFlavor));
  }
  const name = clusterQueueName(team.name);
  if (resourceGroups.length > MAX_RESOURCE_GROUPS) {
    throw new GpuDomainError(
      'INVALID_CONFIG',
      `Team ${team.name} needs ${resourceGroups.length} Kueue resource groups; a ClusterQueue allows at most ${MAX_RESOURCE_GROUPS}`,
    );
  }
  for (const group of resourceGroups) {
    if (
      group.coveredResources.length > MAX_PER_GROUP ||
      group.flavors.length > MAX_PER_GROUP
    ) {
      throw new GpuDomainError(
        'INVALID_CONFIG',
        `Team ${team.name}'s ClusterQueue has a resource group with ${group.coveredResources.length} resources and ` +
          `${group.flavors.length} flavors; Kueue allows at most ${MAX_PER_GROUP} of each`,
      );
    }
  }
  const cohort = platform.kueue.cohort;
  const v1beta1 = platform.kueue.apiVersion === 'kueue.x-k8s.io/v1beta1';
  return {
    apiVersion: platform.kueue.apiVersion,
    kind: 'ClusterQueue',
    metadata: {
      name,
      labels: ownershipLabels('platform', { team: team.name }),
    },
    spec: {
      cohortName: v1beta1 ? undefined : cohort,
      cohort: v1beta1 ? cohort : undefined,
      namespaceSelector: {
        matchExpressions: [
          {
            key: 'kubernetes.io/metadata.name',
            operator: 'In',
            values: [...new Set(team.namespaces)].sort(),
          },
        ],
      },
      queueingStrategy: 'BestEffortFIFO',
      preemption: {
        withinClusterQueue: 'LowerPriority',
        reclaimWithinCohort: 'Any',
        borrowWithinCohort: { policy: 'Never' },
      },
      resourceGroups,
    },
  };
}
