import {
  Platform,
  Slice,
  slicesFor,
} from '@internal/backstage-plugin-gpu-common';
import { ServiceRecord } from '../database';

/** The slice one replica of a service holds; undefined when its pool left the config. */
export function serviceSlice(
  platform: Platform,
  service: ServiceRecord,
): Slice | undefined {
  const { placement } = service;
  if (!platform.pools.some(p => p.name === placement.pool)) return undefined;
  return slicesFor(platform, placement.pool).find(
    s =>
      s.tier === placement.tier &&
      s.migProfile === placement.migProfile &&
      s.gpusPerReplica === placement.gpusPerReplica,
  );
}
