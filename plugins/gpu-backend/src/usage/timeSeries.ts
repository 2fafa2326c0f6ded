import { TimePoint } from '@gpu-platform/backstage-plugin-gpu-common';
import { RangeSeries } from '../metrics/PrometheusClient';

/** Combines the series of a service's pods into one time series (mean or sum per timestamp), scaled. */
export function seriesOf(
  series: RangeSeries[],
  factor: number,
  combine: 'mean' | 'sum',
  transform: (value: number) => number = v => v,
): TimePoint[] {
  const byTime = new Map<number, number[]>();
  for (const s of series) {
    for (const [t, v] of s.points) {
      if (!Number.isFinite(v)) continue;
      const list = byTime.get(t) ?? [];
      list.push(transform(v));
      byTime.set(t, list);
    }
  }
  return [...byTime.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([t, values]) => {
      const total = values.reduce((x, y) => x + y, 0);
      return {
        timestamp: t * 1000,
        value: (combine === 'mean' ? total / values.length : total) * factor,
      };
    });
}
