import type { WindowMetrics } from '../../metrics/collectMetrics';

/** A query family that answered with `data`. */
export const ok = <T>(data: T[]) => ({ ok: true as const, data });

/** A window's metrics where every family answered with nothing, except those in `partial`. */
export function windowMetrics(partial: Partial<WindowMetrics>): WindowMetrics {
  const empty = ok([]);
  return {
    util: empty,
    engine: empty,
    fbUsed: empty,
    fbUsedPeak: empty,
    fbFree: empty,
    power: empty,
    xidSamples: empty,
    xidLast: empty,
    recentPeakUtil: empty,
    generated: empty,
    prompt: empty,
    running: empty,
    waiting: empty,
    kvCache: empty,
    latencyP50: empty,
    latencyP95: empty,
    latencyP99: empty,
    ...partial,
  };
}
