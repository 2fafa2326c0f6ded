import { MetricsStatus } from '@internal/backstage-plugin-gpu-common';
import { FAMILY_METRIC, WindowMetrics } from '../metrics/collectMetrics';

/** Families without which there is no usage at all. */
const ESSENTIAL: Array<keyof WindowMetrics> = ['util', 'engine'];

/**
 * Summarises how the queries of a window went: `unavailable` when nothing answered (or neither utilisation family
 * did), `partial` naming the metrics that failed, else `available`.
 */
export function metricsStatus(metrics: WindowMetrics): MetricsStatus {
  const entries = Object.entries(metrics) as Array<
    [keyof WindowMetrics, WindowMetrics[keyof WindowMetrics]]
  >;
  const failed = entries.filter(([, family]) => family && !family.ok);
  const reasons = failed.map(
    ([, family]) => (family as { reason: string }).reason,
  );
  if (
    failed.length === entries.length ||
    ESSENTIAL.every(k => !metrics[k]?.ok)
  ) {
    return {
      state: 'unavailable',
      reason: reasons[0] ?? 'Prometheus did not answer',
    };
  }
  if (failed.length > 0) {
    return {
      state: 'partial',
      reason: [...new Set(reasons)].join('; '),
      missing: [...new Set(failed.map(([key]) => FAMILY_METRIC[key]))].sort(),
    };
  }
  return { state: 'available' };
}

/** Status when no Prometheus is configured. */
export const NOT_CONFIGURED: MetricsStatus = {
  state: 'not-configured',
  reason:
    'No metrics source: gpu.prometheus.baseUrl is not configured, so only allocation cost is shown',
};
