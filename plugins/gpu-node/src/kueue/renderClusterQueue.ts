import {
  allowanceUnits,
  dynamicMigSliceWeights,
  DYNAMIC_MIG_RESOURCE,
  findGpuModel,
  GPU_UNITS_PER_EQUIVALENT,
  GpuDomainError,
  Platform,
  Pool,
  TeamAllowance,
  TeamQuota,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  HOST_CPU_PER_GPU_UNIT,
  hostMemoryGiBPerGpuUnit,
} from '../hostResources';
import { ownershipLabels } from '../labels';
import { clusterQueueName } from '../names/queueNames';
import { GPU_UNITS_RESOURCE, MigQuotaPlan } from './migQuotaPlan';
import { poolResources } from './poolResources';
import { ClusterQueue, FlavorQuotas, ResourceGroup } from './types';

const GIB = 2 ** 30;

/** Kueue's limits on a ClusterQueue. */
const MAX_RESOURCE_GROUPS = 16;
const MAX_PER_GROUP = 64;

/**
 * Annotation of a team's ClusterQueue that says, per MIG pool it has quota on, how the quota is counted.
 *
 * @public
 */
export const MIG_QUOTA_ANNOTATION = 'gpu.backstage.io/mig-quota';

interface FlavorQuota {
  flavor: string;
  /** Resource name to its nominal quota. */
  units: Map<string, number>;
  /** Host cpu and memory (GiB) the pods this quota can admit may ask for. */
  hostCpu: number;
  hostMemoryGiB: number;
  /** For a MIG pool: how its quota is counted, for the annotation. */
  migNote?: string;
}

/**
 * What a team's allowance of `units` GPU units on `pool` gives in Kueue quota: floor(units x per GPU / 5040) of the
 * pool's resource for whole-GPU and shared pools; for a MIG pool counted in GPU units, `units` of
 * {@link GPU_UNITS_RESOURCE}; for a MIG pool counted per profile, floor(units / weight) of each profile (each a bound
 * on its own; the store's admission holds the total); for a dynamic MIG pool, floor(units x SMs per GPU / 5040) of
 * {@link DYNAMIC_MIG_RESOURCE}, the SMs Kueue charges (a whole number of GPUs gives GPUs x SMs per GPU). Host
 * resources cover the most pods of each resource the GPU quota could admit.
 */
function flavorQuota(
  platform: Platform,
  pool: Pool,
  units: number,
  plan: MigQuotaPlan,
): FlavorQuota {
  const quota: FlavorQuota = {
    flavor: pool.name,
    units: new Map(),
    hostCpu: 0,
    hostMemoryGiB: 0,
  };
  const weights = plan.weights.get(pool.name);
  const countReason = plan.countPools.get(pool.name);
  const sharing = pool.sharing;
  if (
    pool.allocation.backend === 'dra' &&
    sharing.type === 'mig' &&
    sharing.partitioning === 'dynamic'
  ) {
    return dynamicMigFlavorQuota(platform, pool, sharing, units, quota);
  }
  const inUnits = weights !== undefined && countReason === undefined;
  for (const resource of poolResources(platform, pool)) {
    const count =
      weights && resource.migProfile
        ? Math.floor(units / weights[resource.migProfile])
        : Math.floor((units * resource.perGpu) / GPU_UNITS_PER_EQUIVALENT);
    if (!inUnits) quota.units.set(resource.name, count);
    quota.hostCpu += count * HOST_CPU_PER_GPU_UNIT;
    quota.hostMemoryGiB += count * hostMemoryGiBPerGpuUnit(resource.memoryGiB);
  }
  if (!weights) return quota;
  const described = Object.entries(weights)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([profile, weight]) => `${profile} weighs ${weight}`)
    .join(', ');
  if (inUnits) {
    quota.units.set(GPU_UNITS_RESOURCE, units);
    quota.migNote = `${pool.name}: ${units} ${GPU_UNITS_RESOURCE} (${described})`;
  } else {
    quota.migNote = `${pool.name}: floor(${units} / weight) per profile (${described}): ${countReason}`;
  }
  return quota;
}

/**
 * A dynamic MIG pool's quota in SMs. Its host resources cover the most pods those SMs admit: 4 CPUs a pod of the
 * smallest profile, and memory at the largest rate of any offered profile (its memory plus 16 GiB per pod, over its
 * SMs).
 */
function dynamicMigFlavorQuota(
  platform: Platform,
  pool: Pool,
  sharing: { layout: Record<string, number> },
  units: number,
  quota: FlavorQuota,
): FlavorQuota {
  const gpu = findGpuModel(platform, pool.gpuModel);
  const weights = dynamicMigSliceWeights(gpu, sharing.layout);
  const sms = Math.floor(
    (units * weights.multiprocessorsPerGpu) / GPU_UNITS_PER_EQUIVALENT,
  );
  quota.units.set(DYNAMIC_MIG_RESOURCE, sms);
  const offered = Object.entries(weights.multiprocessorsByProfile);
  const smallest = Math.min(...offered.map(([, n]) => n));
  quota.hostCpu += Math.floor(sms / smallest) * HOST_CPU_PER_GPU_UNIT;
  quota.hostMemoryGiB += Math.ceil(
    sms *
      Math.max(
        ...offered.map(([name, n]) => {
          const profile = gpu.migProfiles.find(p => p.name === name)!;
          return hostMemoryGiBPerGpuUnit((profile.memoryGb * 1e9) / GIB) / n;
        }),
      ),
  );
  const described = offered
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([profile, n]) => `${profile} weighs ${n}`)
    .join(', ');
  quota.migNote = `${pool.name}: ${sms} ${DYNAMIC_MIG_RESOURCE} (${units} GPU units x ${weights.multiprocessorsPerGpu} SMs per GPU / ${GPU_UNITS_PER_EQUIVALENT}; dynamic MIG, ${described} SMs)`;
  return quota;
}

/** The flavors of a team's ClusterQueue: one per pool its allowance gives units on, in pool order. */
function flavorQuotas(
  platform: Platform,
  allowance: TeamAllowance,
  plan: MigQuotaPlan,
): FlavorQuota[] {
  for (const poolName of Object.keys(allowance.gpuUnits)) {
    if (!platform.pools.some(p => p.name === poolName)) {
      throw new GpuDomainError(
        'UNKNOWN_POOL',
        `Team ${
          allowance.team
        } has quota on unknown pool ${poolName}; pools: ${platform.pools
          .map(p => p.name)
          .join(', ')}`,
        { allowed: platform.pools.map(p => p.name) },
      );
    }
  }
  return platform.pools
    .filter(pool => allowanceUnits(allowance, pool.name) > 0)
    .map(pool =>
      flavorQuota(platform, pool, allowanceUnits(allowance, pool.name), plan),
    );
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
  const cpu = quotas.reduce((sum, q) => sum + q.hostCpu, 0);
  const memoryGiB = quotas.reduce((sum, q) => sum + q.hostMemoryGiB, 0);
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
 * derived from the team's allowance (integer GPU units, see `flavorQuota`), and (unless `hostFlavor` is `false`) a
 * cpu/memory group sized so that the GPU quota, not the host quota, is what binds. A team with quota on MIG pools
 * gets the {@link MIG_QUOTA_ANNOTATION} saying how each is counted.
 */
export function renderClusterQueue(
  platform: Platform,
  team: TeamQuota,
  allowance: TeamAllowance,
  hostFlavor: string | false,
  plan: MigQuotaPlan,
): ClusterQueue {
  if (team.namespaces.length === 0) {
    throw new GpuDomainError(
      'INVALID_CONFIG',
      `Team ${team.name} has no namespaces; a team needs at least one namespace for its ClusterQueue to admit from`,
    );
  }
  const quotas = flavorQuotas(platform, allowance, plan);
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
  const migNotes = quotas.flatMap(q => (q.migNote ? [q.migNote] : []));
  const cohort = platform.kueue.cohort;
  const v1beta1 = platform.kueue.apiVersion === 'kueue.x-k8s.io/v1beta1';
  return {
    apiVersion: platform.kueue.apiVersion,
    kind: 'ClusterQueue',
    metadata: {
      name,
      labels: ownershipLabels('platform', { team: team.name }),
      ...(migNotes.length > 0
        ? { annotations: { [MIG_QUOTA_ANNOTATION]: migNotes.join('; ') } }
        : {}),
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
