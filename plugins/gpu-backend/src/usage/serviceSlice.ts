import {
  Platform,
  Slice,
  slicesFor,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { ServiceRecord } from '../database';

/** Slices per pool, computed once per platform object (platforms are immutable). */
const cache = new WeakMap<Platform, Map<string, Slice[]>>();

/** Every slice of a pool, memoised per platform. */
export function poolSlices(platform: Platform, pool: string): Slice[] {
  let byPool = cache.get(platform);
  if (!byPool) {
    byPool = new Map();
    cache.set(platform, byPool);
  }
  let slices = byPool.get(pool);
  if (!slices) {
    slices = platform.pools.some(p => p.name === pool)
      ? slicesFor(platform, pool)
      : [];
    byPool.set(pool, slices);
  }
  return slices;
}

/** The slice one replica of a service holds; undefined when its pool left the config. */
export function serviceSlice(
  platform: Platform,
  service: ServiceRecord,
): Slice | undefined {
  const { placement } = service;
  return poolSlices(platform, placement.pool).find(
    s =>
      s.tier === placement.tier &&
      s.migProfile === placement.migProfile &&
      s.gpusPerReplica === placement.gpusPerReplica,
  );
}
