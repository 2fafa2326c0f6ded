import { demoPlatformConfig } from '@gpu-platform/backstage-plugin-gpu-common';
import { DateTime } from 'luxon';
import {
  HistoryGap,
  HistoryService,
  HistorySpec,
  podName,
} from '../../testUtils/prometheus';
import { SeededService } from './seedUsageServices';

const SAMPLE = 300;
const HOUR = 3600;
const DAY = 86400;

/** A deterministic pseudo-random source (mulberry32), so a failing seed can be run again. */
export function randomSource(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    /** A number in [min, max). */
    between: (min: number, max: number) => min + (max - min) * next(),
    /** A multiple of `unit` in [min, max]. */
    multiple: (min: number, max: number, unit: number) =>
      unit *
      Math.floor(
        Math.ceil(min / unit) +
          next() * (Math.floor(max / unit) - Math.ceil(min / unit) + 1),
      ),
  };
}

/** A service of the scenario: what it held, when its pod sampled, how busy, and how to compute its usage. */
interface Lifetime {
  seeded: SeededService;
  /** Unix seconds: held (and its pod running) over [heldFrom, heldUntil). */
  heldFrom: number;
  heldUntil: number;
  /** DCGM gaps (no samples in (after, until]). */
  gaps: HistoryGap[];
  /** Dedicated and MIG: utilisation 0 to 1; shared: see `usageSeconds`. */
  utilisation?: number;
  /** No metrics at all: usage unknown. */
  blind?: boolean;
}

/**
 * Usage and cost over services that live part of a window, from random parameters (none of them those of the
 * issue that asked for it): a dedicated service created hours before the end, one deleted hours before the end, a
 * MIG slice created at midnight on the 1st of the month, a dedicated GPU whose exporter missed one or two scrapes
 * several times (gaps shorter than any measuring step) and once for hours, a service held 25 to 22 days ago only, a
 * service without metrics, and a time-sliced T4 shared by a pod there all along (its vLLM scrapes missed for hours)
 * and one that arrives and leaves within the last day, both generating tokens at the same rate, and an MPS L4 whose
 * exporter reports per-pod values, a pod above its quarter there all along and one below it arriving within the last
 * day. Utilisation is constant per service, so the plain arithmetic is: usage = GPU-hour price x GPU-equivalents x
 * utilisation x the sampled hours held; on the time-sliced GPU the device's busy GPU-hours x price, half to each pod
 * while both are there; on the MPS GPU each pod's own value up to its quarter, the rest above the share.
 */
export function lifetimeScenario(options: { end: number; seed: number }) {
  const { end, seed } = options;
  const random = randomSource(seed);
  const monthStart = DateTime.fromSeconds(end, { zone: 'utc' })
    .startOf('month')
    .toSeconds();
  const held = end - 12 * DAY;
  const iso = (t: number) => new Date(t * 1000).toISOString();
  const late = end - random.multiple(2 * HOUR, 20 * HOUR, SAMPLE) - 100;
  const lateFrom = late - (late % SAMPLE);
  const deletedAt = end - random.multiple(3 * HOUR, 20 * HOUR, SAMPLE);
  const shortGaps: HistoryGap[] = [0, 1, 2].map(i => {
    const after =
      end -
      (i + 1) * 7 * HOUR +
      random.multiple(0, 5 * HOUR, SAMPLE) -
      SAMPLE * 3;
    return {
      after,
      until: after + random.multiple(SAMPLE, 2 * SAMPLE, SAMPLE),
    };
  });
  const longGapAfter = end - random.multiple(3 * DAY, 9 * DAY, HOUR);
  const longGap = {
    after: longGapAfter,
    until: longGapAfter + random.multiple(2 * HOUR, 5 * HOUR, SAMPLE),
  };
  const arrive = end - random.multiple(12 * HOUR, 20 * HOUR, SAMPLE);
  const leave = end - random.multiple(2 * HOUR, 8 * HOUR, SAMPLE);
  // Hours without vLLM scrapes of the steady pod, aligned to 3 hours (every measuring step of the tests).
  const vllmGapAfter =
    end - 9 * HOUR - ((end - 9 * HOUR) % (3 * HOUR)) - 3 * HOUR;
  const vllmGap = { after: vllmGapAfter, until: vllmGapAfter + 6 * HOUR };
  const deviceUtil = random.multiple(8, 20, 1);
  const mpsArrive = end - random.multiple(4 * HOUR, 16 * HOUR, SAMPLE);
  const percent = () => random.multiple(10, 90, 1);

  const base = (name: string, team: string, namespace: string) => ({
    name,
    team,
    namespace,
    environment: 'dev',
  });
  const lifetimes: Lifetime[] = [
    {
      seeded: {
        ...base('late-chat', 'ml-platform', 'ml-serving'),
        tier: 'dedicated',
        pool: 'l4-ondemand',
        gpuEquivalents: 1,
        heldAt: iso(lateFrom),
      },
      heldFrom: lateFrom,
      heldUntil: end,
      gaps: [],
      utilisation: percent() / 100,
    },
    {
      seeded: {
        ...base('gone-embed', 'ml-platform', 'ml-serving'),
        tier: 'dedicated',
        pool: 'l4-ondemand',
        gpuEquivalents: 1,
        heldAt: iso(held),
        releasedAt: iso(deletedAt),
      },
      heldFrom: held,
      heldUntil: deletedAt,
      gaps: [],
      utilisation: percent() / 100,
    },
    {
      seeded: {
        ...base('first-mig', 'search', 'search'),
        tier: 'mig',
        pool: 'a100-mig',
        migProfile: '1g.10gb',
        gpuEquivalents: 1 / 7,
        heldAt: iso(monthStart),
      },
      heldFrom: monthStart,
      heldUntil: end,
      gaps: [],
      utilisation: percent() / 100,
    },
    {
      seeded: {
        ...base('gappy', 'search', 'search'),
        tier: 'dedicated',
        pool: 'l4-ondemand',
        gpuEquivalents: 1,
        heldAt: iso(held),
      },
      heldFrom: held,
      heldUntil: end,
      gaps: [...shortGaps, longGap],
      utilisation: percent() / 100,
    },
    {
      seeded: {
        ...base('ancient', 'ml-platform', 'ml-serving'),
        tier: 'dedicated',
        pool: 'l4-ondemand',
        gpuEquivalents: 1,
        heldAt: iso(end - 25 * DAY),
        releasedAt: iso(end - 22 * DAY),
      },
      heldFrom: end - 25 * DAY,
      heldUntil: end - 22 * DAY,
      gaps: [],
      utilisation: percent() / 100,
    },
    {
      seeded: {
        ...base('blind', 'search', 'batch'),
        tier: 'dedicated',
        pool: 'spot-l4',
        gpuEquivalents: 1,
        heldAt: iso(held),
      },
      heldFrom: held,
      heldUntil: end,
      gaps: [],
      blind: true,
    },
    {
      seeded: {
        ...base('ts-steady', 'search', 'search'),
        tier: 'time-sliced',
        pool: 't4-timeslice',
        gpuEquivalents: 1 / 4,
        heldAt: iso(held),
      },
      heldFrom: held,
      heldUntil: end,
      gaps: [],
    },
    {
      // Per-pod MPS values above its quarter: the quarter is billed, the rest is busy time above the share.
      seeded: {
        ...base('mps-hog', 'ml-platform', 'ml-serving'),
        tier: 'mps',
        pool: 'l4-mps',
        gpuEquivalents: 1 / 4,
        heldAt: iso(held),
      },
      heldFrom: held,
      heldUntil: end,
      gaps: [],
      utilisation: random.multiple(35, 60, 1) / 100,
    },
    {
      seeded: {
        ...base('mps-light', 'search', 'search'),
        tier: 'mps',
        pool: 'l4-mps',
        gpuEquivalents: 1 / 4,
        heldAt: iso(mpsArrive),
      },
      heldFrom: mpsArrive,
      heldUntil: end,
      gaps: [],
      utilisation: random.multiple(3, 15, 1) / 100,
    },
    {
      seeded: {
        ...base('ts-visitor', 'ml-platform', 'ml-serving'),
        tier: 'time-sliced',
        pool: 't4-timeslice',
        gpuEquivalents: 1 / 4,
        heldAt: iso(arrive),
        releasedAt: iso(leave),
      },
      heldFrom: arrive,
      heldUntil: leave,
      gaps: [],
    },
  ];

  const t4 = { hostname: 't4-lifetimes-1', gpu: '0' };
  const mps = { hostname: 'l4-mps-lifetimes-1', gpu: '0' };
  const services: HistoryService[] = lifetimes
    .filter(l => !l.blind)
    .map(l => {
      const { name, namespace, tier } = l.seeded;
      const shared = tier === 'time-sliced' || tier === 'mps';
      const sharedDevice = tier === 'mps' ? mps : t4;
      return {
        name,
        namespace,
        tier,
        pods: [
          {
            pod: podName(name),
            ...(shared ? sharedDevice : { hostname: `${name}-node`, gpu: '0' }),
            ...(tier === 'mig'
              ? { migInstance: '7', migProfile: l.seeded.migProfile }
              : {}),
            from: l.heldFrom + SAMPLE,
            ...(l.heldUntil < end ? { until: l.heldUntil } : {}),
          },
        ],
        ...(l.utilisation !== undefined
          ? { utilisation: { mean: l.utilisation * 100 } }
          : {}),
        memoryMiB: { mean: 12000 },
        totalMiB: 23034,
        tokensPerSecond: 50,
        withoutVllm: !shared,
        ...(l.gaps.length ? { dcgmGaps: l.gaps } : {}),
        ...(name === 'ts-steady' ? { vllmGaps: [vllmGap] } : {}),
      };
    });
  const spec: Omit<HistorySpec, 'stepSeconds'> & { stepSeconds: number } = {
    end,
    days: 31,
    stepSeconds: SAMPLE,
    services,
    sharedDevices: [
      {
        ...t4,
        utilisation: { mean: deviceUtil },
        memoryMiB: { mean: 9000 },
        totalMiB: 15360,
      },
      {
        ...mps,
        dcgm: 'per-pod',
        utilisation: { mean: 0 },
        memoryMiB: { mean: 9000 },
        totalMiB: 23034,
      },
    ],
  };

  const gpuHourMicros = (pool: string) => {
    const p = demoPlatformConfig.pools.find(x => x.name === pool)!;
    return (Number(p.pricePerNodeHour) * 1e6) / p.gpusPerNode;
  };
  const overlap = (a: number, b: number, c: number, d: number) =>
    Math.max(0, Math.min(b, d) - Math.max(a, c));

  /** Plain arithmetic: the usage cost of a service over [from, to) (unix seconds), micro-dollars; undefined when unknown. */
  function usageMicros(name: string, from: number, to: number) {
    const l = lifetimes.find(x => x.seeded.name === name)!;
    if (l.blind) return undefined;
    const price = gpuHourMicros(l.seeded.pool);
    const start = Math.max(from, l.heldFrom);
    const stop = Math.min(to, l.heldUntil);
    if (stop <= start) return 0;
    if (l.seeded.tier === 'time-sliced') {
      // The device busy deviceUtil% all the time; half to each pod while both are there.
      const together = overlap(start, stop, arrive, leave);
      const mine =
        name === 'ts-visitor' ? together / 2 : stop - start - together / 2;
      return (price * (deviceUtil / 100) * mine) / HOUR;
    }
    if (l.seeded.tier === 'mps') {
      // Its own value, up to the share it holds.
      return (
        (price *
          Math.min(l.seeded.gpuEquivalents, l.utilisation!) *
          (stop - start)) /
        HOUR
      );
    }
    const missing = l.gaps.reduce(
      (t, g) => t + overlap(start, stop, g.after, g.until),
      0,
    );
    return (
      (price *
        l.seeded.gpuEquivalents *
        l.utilisation! *
        (stop - start - missing)) /
      HOUR
    );
  }

  /** Plain arithmetic: busy time on MPS GPUs above the share held over [from, to), micro-dollars. */
  function aboveShareMicros(from: number, to: number) {
    return lifetimes
      .filter(l => l.seeded.tier === 'mps')
      .reduce(
        (t, l) =>
          t +
          (gpuHourMicros(l.seeded.pool) *
            Math.max(0, l.utilisation! - l.seeded.gpuEquivalents) *
            overlap(from, to, l.heldFrom, l.heldUntil)) /
            HOUR,
        0,
      );
  }

  /** Plain arithmetic: allocation over [from, to), micro-dollars. */
  function allocationMicros(name: string, from: number, to: number) {
    const l = lifetimes.find(x => x.seeded.name === name)!;
    const seconds = overlap(from, to, l.heldFrom, l.heldUntil);
    return (
      (gpuHourMicros(l.seeded.pool) * l.seeded.gpuEquivalents * seconds) / HOUR
    );
  }

  return {
    spec,
    seeded: lifetimes.map(l => l.seeded),
    names: lifetimes.map(l => l.seeded.name),
    teams: ['ml-platform', 'search'],
    teamOf: (name: string) =>
      lifetimes.find(l => l.seeded.name === name)!.seeded.team,
    usageMicros,
    aboveShareMicros,
    allocationMicros,
    parameters: {
      seed,
      late: end - lateFrom,
      deletedAgo: end - deletedAt,
      arriveAgo: end - arrive,
      mpsArriveAgo: end - mpsArrive,
      leaveAgo: end - leave,
      deviceUtil,
      shortGaps,
      longGap,
      vllmGap,
    },
  };
}
