import { MetricsStatus } from '@gpu-platform/backstage-plugin-gpu-common';
import { FAMILY_METRIC, WindowMetrics } from '../metrics/collectMetrics';
import { PrometheusSettings } from '../metrics/PrometheusConfig';

/** Families without which there is no usage at all. */
const ESSENTIAL: Array<keyof WindowMetrics> = ['util', 'engine'];

/**
 * Summarises how the queries of a window went: `unavailable` when nothing answered (or neither utilisation family
 * did), `partial` naming the metrics that failed or answered with skipped data (a `null` result, NaN/Inf or malformed
 * samples, duplicated series, Prometheus warnings), else `available`.
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
  // Families that answered but with something skipped: null results, bad samples, duplicates, Prometheus warnings.
  const warned = entries.filter(
    ([, family]) => family?.ok && (family.warnings?.length ?? 0) > 0,
  );
  if (failed.length > 0 || warned.length > 0) {
    const warnings = warned.flatMap(([key, family]) =>
      family?.ok
        ? (family.warnings ?? []).map(w => `${FAMILY_METRIC[key]}: ${w}`)
        : [],
    );
    return {
      state: 'partial',
      reason: [...new Set([...reasons, ...warnings])].join('; '),
      missing: [
        ...new Set([...failed, ...warned].map(([key]) => FAMILY_METRIC[key])),
      ].sort(),
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

/**
 * A status as the API answers it: with `simulated: true` when the configured Prometheus holds simulated series
 * (`gpu.prometheus.simulated`, the `--cluster` demo), whatever its state but `not-configured`.
 */
export function answeredStatus(
  status: MetricsStatus,
  prometheus: Pick<PrometheusSettings, 'simulated'> | undefined,
): MetricsStatus {
  return prometheus?.simulated && status.state !== 'not-configured'
    ? { ...status, simulated: true }
    : status;
}
