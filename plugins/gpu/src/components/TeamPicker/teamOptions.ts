import { Entity, stringifyEntityRef } from '@backstage/catalog-model';
import { Platform } from '@gpu-platform/backstage-plugin-gpu-common';

/** One catalog group as the team picker offers it. */
export interface TeamOption {
  /** `group:default/ml-platform`: what the form stores. */
  ref: string;
  name: string;
  /** The pools the platform gives the team GPU quota on (GPU-equivalents above 0), in the platform's order. */
  quota: { pool: string; gpuEquivalents: number }[];
}

/** The pools a team of the platform has quota on; none for a group the platform does not know. */
export function quotaOf(platform: Platform, team: string): TeamOption['quota'] {
  const quota = platform.teams.find(t => t.name === team)?.gpuQuota ?? {};
  return platform.pools
    .filter(pool => (quota[pool.name] ?? 0) > 0)
    .map(pool => ({ pool: pool.name, gpuEquivalents: quota[pool.name] }));
}

/** The catalog's groups with their GPU quota: teams with quota first, then those without, each by name. */
export function teamOptions(
  groups: Entity[],
  platform: Platform,
): TeamOption[] {
  return groups
    .map(group => ({
      ref: stringifyEntityRef(group),
      name: group.metadata.name,
      quota: quotaOf(platform, group.metadata.name),
    }))
    .sort(
      (a, b) =>
        Number(b.quota.length > 0) - Number(a.quota.length > 0) ||
        a.name.localeCompare(b.name),
    );
}

/** `l4-ondemand 4, a100-mig 4 GPU-equivalents`. */
export function quotaText(option: TeamOption): string {
  return `${option.quota
    .map(q => `${q.pool} ${Number(q.gpuEquivalents.toFixed(3))}`)
    .join(', ')} GPU-equivalents`;
}
