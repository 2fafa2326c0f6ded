import { answeredStatus } from './metricsStatus';
import {
  ServiceUsage,
  UsageWindow,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { collectSeries } from '../metrics/collectMetrics';
import { MIB } from '../metrics/metricNames';
import { RangeSeries } from '../metrics/PrometheusClient';
import { ServiceAllocation } from './AllocationReader';
import { allocationInRange } from './allocation';
import { isMigParentSeries } from './attribution';
import {
  measure,
  prometheusClient,
  serviceStatus,
  statusOfUnheld,
  usageTarget,
} from './measurement';
import { serviceSlice } from './serviceSlice';
import { seriesOf } from './timeSeries';
import { UsageContext } from './usageContext';
import { unixSeconds } from './usageWindow';

/** `GET /services/:id/usage`: one service's usage over a window, attributed per tier, with its series. */
export async function serviceUsage(
  context: UsageContext,
  allocation: ServiceAllocation,
  window: UsageWindow,
): Promise<ServiceUsage> {
  const { service } = allocation;
  const client = prometheusClient(context);
  const end = unixSeconds(window.end);
  const start = unixSeconds(window.start);
  const slice = serviceSlice(context.platform, service);
  const [measurement, series] = await Promise.all([
    measure(context, client, [allocation], {
      end,
      seconds: window.durationSeconds,
      step: window.stepSeconds,
    }),
    client && context.prometheus
      ? collectSeries({
          client,
          targets: [usageTarget(context, allocation)],
          start,
          end,
          stepSeconds: window.stepSeconds,
          labels: context.prometheus.labels,
        })
      : undefined,
  ]);
  const usage = measurement.usage.get(service.id);
  const replicas = Math.max(1, service.request.replicas);
  // The slice's memory; DCGM's FB_USED + FB_FREE when the pool has left the config.
  const allocatedBytes = slice
    ? slice.memoryBytes * replicas
    : usage?.deviceMemoryBytes ?? 0;
  const held = allocationInRange(
    allocation.reservations,
    context.prices,
    Date.parse(window.start),
    Date.parse(window.end),
  );
  const share = usage?.shareOfDevice ?? 1;
  const shared = service.tier === 'mps' || service.tier === 'time-sliced';
  // A MIG service's charts are its instances' series, never its parent GPU's (`isMigParentSeries`).
  const migInstanceLabel = context.prometheus?.labels.migInstance;
  const ownSeries = (list: RangeSeries[]) =>
    list.filter(
      s =>
        !isMigParentSeries(service.tier, {
          migInstance: migInstanceLabel
            ? s.labels[migInstanceLabel]
            : undefined,
        }),
    );
  const seconds = window.durationSeconds;
  return {
    serviceId: service.id,
    name: service.name,
    team: service.team,
    namespace: service.namespace,
    environment: service.environment,
    tier: service.tier,
    pool: service.pool,
    ...(service.placement.migProfile
      ? { migProfile: service.placement.migProfile }
      : {}),
    window,
    metrics: answeredStatus(
      statusOfUnheld(
        serviceStatus(measurement, usage),
        held.hours > 0 || held.reservedHours > 0,
        service.status === 'deleted',
      ),
      context.prometheus,
    ),
    gpuEquivalents: held.gpuEquivalentsAtEnd,
    ...(usage?.utilisation ? { utilisation: usage.utilisation } : {}),
    ...(usage?.engineActive ? { engineActive: usage.engineActive } : {}),
    ...(usage?.memoryUsedBytes
      ? {
          memory: {
            usedBytes: usage.memoryUsedBytes,
            peakUsedBytes: usage.peakMemoryBytes ?? usage.memoryUsedBytes.value,
            allocatedBytes,
            peakFraction:
              allocatedBytes > 0
                ? (usage.peakMemoryBytes ?? usage.memoryUsedBytes.value) /
                  allocatedBytes
                : 0,
          },
        }
      : {}),
    ...(usage?.powerWatts ? { powerWatts: usage.powerWatts } : {}),
    ...(usage?.xid ? { xid: usage.xid } : {}),
    ...(usage?.generatedTokens !== undefined
      ? {
          tokens: {
            generated: usage.generatedTokens,
            prompt: usage.promptTokens ?? 0,
            generatedPerSecond: usage.generatedTokens / seconds,
            promptPerSecond: (usage.promptTokens ?? 0) / seconds,
            shareOfDevice: usage.shareOfDevice ?? 1,
          },
        }
      : {}),
    ...(usage?.running !== undefined || usage?.waiting !== undefined
      ? {
          requests: {
            running: usage?.running ?? 0,
            waiting: usage?.waiting ?? 0,
          },
        }
      : {}),
    ...(usage?.kvCacheUsage !== undefined
      ? { kvCacheUsage: usage.kvCacheUsage }
      : {}),
    ...(usage?.latency ? { latency: usage.latency } : {}),
    series: {
      // Shared tiers: the step-by-step attribution's own series (busy time / the share held); else the device's
      // utilisation x the service's token share / the share it holds.
      utilisation:
        usage?.utilisationSeries ??
        (series?.util.ok
          ? seriesOf(
              ownSeries(series.util.data),
              shared
                ? share / usageTarget(context, allocation).gpuSharePerReplica
                : 1,
              'mean',
              v => v / 100,
            ).map(p => ({ ...p, value: Math.min(1, p.value) }))
          : []),
      memoryUsedBytes: series?.fbUsed.ok
        ? seriesOf(
            ownSeries(series.fbUsed.data),
            1,
            shared ? 'mean' : 'sum',
            v => v * MIB,
          )
        : [],
      generatedTokensPerSecond: series?.generatedRate.ok
        ? seriesOf(series.generatedRate.data, 1, 'sum')
        : [],
      queueDepth: series?.waiting.ok
        ? seriesOf(series.waiting.data, 1, 'sum')
        : [],
    },
  };
}
