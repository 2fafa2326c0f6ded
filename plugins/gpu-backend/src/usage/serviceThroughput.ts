import {
  estimateSliceThroughput,
  findMeasuredCapacity,
  fitSlices,
  MeasuredCapacity,
  MeasuredCapacitySource,
  Platform,
  ServiceThroughput,
  sliceShapeOf,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { ServiceRecord } from '../database';
import { serviceSlice } from './serviceSlice';

/**
 * A service's sustained throughput: `ownMeasured` (tokens/s of one replica from its own counters over `source`'s
 * window) when it has one, else the measured capacity of another service of the same model and slice shape, else the
 * bandwidth estimate of its slice. Undefined when its pool left the config or its GPU has no known bandwidth.
 */
export function serviceThroughput(options: {
  platform: Platform;
  service: ServiceRecord;
  ownMeasured?: { tokensPerSecond: number; source: MeasuredCapacitySource };
  capacities?: readonly MeasuredCapacity[];
}): ServiceThroughput | undefined {
  const { platform, service } = options;
  const slice = serviceSlice(platform, service);
  if (!slice) return undefined;
  const replicas = Math.max(1, service.request.replicas);
  const figure = (
    basis: ServiceThroughput['basis'],
    perReplica: number,
    measuredBy?: MeasuredCapacitySource,
  ): ServiceThroughput => ({
    basis,
    tokensPerSecondPerReplica: perReplica,
    replicas,
    capacityTokensPerSecond: perReplica * replicas,
    ...(measuredBy ? { measuredBy } : {}),
  });
  if (options.ownMeasured && options.ownMeasured.tokensPerSecond > 0) {
    return figure(
      'measured',
      options.ownMeasured.tokensPerSecond,
      options.ownMeasured.source,
    );
  }
  if (!Object.hasOwn(platform.models, service.request.model)) return undefined;
  const other = options.capacities
    ? findMeasuredCapacity(
        options.capacities,
        sliceShapeOf(platform, service.request, slice),
      )
    : undefined;
  if (other) return figure('measured', other.tokensPerSecond, other.source);
  const fit = fitSlices(platform, {
    ...service.request,
    pool: slice.pool,
    tier: slice.tier,
  }).find(
    f =>
      f.slice.migProfile === slice.migProfile &&
      f.slice.gpusPerReplica === slice.gpusPerReplica,
  );
  const estimate = fit
    ? estimateSliceThroughput(platform, service.request, fit)
    : undefined;
  return estimate === undefined ? undefined : figure('estimated', estimate);
}
