import { Entity, stringifyEntityRef } from '@backstage/catalog-model';
import {
  TeamQuotaView,
  teamQuotaLeft,
} from '@gpu-platform/backstage-plugin-gpu-common';

/** A team's quota on one pool and what its services hold there, in GPU-equivalents. */
export interface PoolQuotaLeft {
  pool: string;
  gpuEquivalents: number;
  heldGpuEquivalents: number;
  leftGpuEquivalents: number;
}

/** One catalog group as the team picker offers it. */
export interface TeamOption {
  /** `group:default/ml-platform`: what the form stores. */
  ref: string;
  name: string;
  /** The pools the team has quota on (above 0), by pool name. */
  quota: PoolQuotaLeft[];
  /** Why the team cannot own a GPU service, in words; absent when it can. */
  noQuota?: string;
  /** It has quota, but its services hold all of it on every pool: a new one waits for approval. */
  usedUp: boolean;
}

/**
 * Why a team of yours absent from `GET /quotas` has none: the route answers every record of the caller's teams, so it
 * has no quota record yet.
 */
export const NOT_A_QUOTA_TEAM =
  'no quota yet; the platform team sets team quotas on the GPU page';
/** Why a team whose record gives no pool any GPUs has none. */
export const NO_POOL_QUOTA = 'none on any pool';

/** The pools a team's quota record gives GPUs on, with what is held and left on each, by pool name. */
export function poolQuotasLeft(quota: TeamQuotaView): PoolQuotaLeft[] {
  const left = teamQuotaLeft(quota).gpuEquivalents;
  return Object.entries(quota.pools)
    .filter(([, gpuEquivalents]) => gpuEquivalents > 0)
    .map(([pool, gpuEquivalents]) => ({
      pool,
      gpuEquivalents,
      heldGpuEquivalents: quota.reservedGpuEquivalents[pool] ?? 0,
      leftGpuEquivalents: left[pool],
    }))
    .sort((a, b) => a.pool.localeCompare(b.pool));
}

/** A team's option from its quota record (`undefined`: not among the caller's `GET /quotas`). */
export function teamOption(
  ref: string,
  name: string,
  record: TeamQuotaView | undefined,
): TeamOption {
  const quota = record ? poolQuotasLeft(record) : [];
  let noQuota: string | undefined;
  if (!record) noQuota = NOT_A_QUOTA_TEAM;
  else if (quota.length === 0) noQuota = NO_POOL_QUOTA;
  return {
    ref,
    name,
    quota,
    ...(noQuota ? { noQuota } : {}),
    usedUp: quota.length > 0 && quota.every(q => q.leftGpuEquivalents <= 0),
  };
}

/**
 * The catalog's groups the user is a member of (`memberOf`: the user's ownership refs; the backend lets members of a
 * team create its services, nobody else), with their GPU quota from `GET /quotas` (the quota records the caller may
 * read): teams with quota first, then those without, each by name.
 */
export function teamOptions(
  groups: Entity[],
  quotas: TeamQuotaView[],
  memberOf: readonly string[],
): TeamOption[] {
  const byTeam = new Map(quotas.map(q => [q.team, q]));
  const mine = new Set(memberOf.map(ref => ref.toLocaleLowerCase('en-US')));
  return groups
    .filter(group =>
      mine.has(stringifyEntityRef(group).toLocaleLowerCase('en-US')),
    )
    .map(group =>
      teamOption(
        stringifyEntityRef(group),
        group.metadata.name,
        byTeam.get(group.metadata.name),
      ),
    )
    .sort(
      (a, b) =>
        Number(!!a.noQuota) - Number(!!b.noQuota) ||
        a.name.localeCompare(b.name),
    );
}

const gpus = (n: number) => String(Number(n.toFixed(3)));

/** How the select lists a team: `search`, `search (no GPU quota left)` or `platform-team (no GPU quota): why`. */
export function optionLabel(option: TeamOption): string {
  if (option.noQuota) return `${option.name} (no GPU quota): ${option.noQuota}`;
  if (option.usedUp) return `${option.name} (no GPU quota left)`;
  return option.name;
}

/**
 * The chosen team's quota under the field: `GPU quota left: a100-mig 4 of 4, l4-ondemand 1 of 4 GPU-equivalents`,
 * or, with every pool held, `No GPU quota left: ... held; a new service waits for approval`.
 */
export function quotaText(option: TeamOption): string {
  if (option.noQuota) return `No GPU quota: ${option.noQuota}`;
  if (option.usedUp) {
    return `No GPU quota left: ${option.quota
      .map(
        q =>
          `${q.pool} ${gpus(q.heldGpuEquivalents)} of ${gpus(
            q.gpuEquivalents,
          )} held`,
      )
      .join(', ')} GPU-equivalents; a new service waits for approval`;
  }
  return `GPU quota left: ${option.quota
    .map(
      q =>
        `${q.pool} ${gpus(q.leftGpuEquivalents)} of ${gpus(q.gpuEquivalents)}`,
    )
    .join(', ')} GPU-equivalents`;
}
