import fc from 'fast-check';
import type { ReservationRecord } from '../database/types';
import { Interval } from './accrual';
import { allocationInRange } from './allocation';
import { attributeUsage, AttributionTarget } from './attribution';
import { heldSpan } from './heldSpan';
import { nestedShares } from './sharedDevices';
import { endAlignedGrid, spanFigure } from './spanUsage';
import { samplesPerStep, StepSamples } from './stepSamples';
import { ok, windowMetrics } from './__testUtils__/windowMetrics';
import { DeviceSteps } from '../metrics/sharedQueries';

const HOUR = 3600;
const GPU_HOUR_MICROS = 804_800;

/** One pod's GPU utilisation sampled every `interval` s while it lived, except in gaps; counts and sums per step. */
function sampled(options: {
  pod: string;
  from: number;
  until: number;
  gaps: Array<[number, number]>;
  interval: number;
  percent: number;
  times: number[];
  step: number;
}): { series: StepSamples; seconds: number } {
  const { from, until, gaps, interval, percent, times, step } = options;
  const counts = new Map<number, number>();
  const sums = new Map<number, number>();
  let seconds = 0;
  // A sample at t stands for (t - interval, t].
  for (let t = from + interval; t <= until; t += interval) {
    if (gaps.some(([a, b]) => t > a && t <= b)) continue;
    const point = times.find(p => t > p - step && t <= p);
    if (point === undefined) continue;
    counts.set(point, (counts.get(point) ?? 0) + 1);
    sums.set(point, (sums.get(point) ?? 0) + percent);
    seconds += interval;
  }
  return {
    series: {
      namespace: 'ml',
      pod: options.pod,
      hostname: 'node',
      gpu: '0',
      metric: 'util',
      counts,
      sums,
    },
    seconds,
  };
}

const reservation = (heldAt: number, releasedAt?: number): ReservationRecord =>
  ({
    id: `r-${heldAt}`,
    serviceId: 's',
    team: 'ml-platform',
    pool: 'l4-ondemand',
    gpuEquivalents: 1,
    monthlyCostMicros: 0,
    state: releasedAt ? 'released' : 'held',
    heldAt: new Date(heldAt * 1000).toISOString(),
    ...(releasedAt
      ? { releasedAt: new Date(releasedAt * 1000).toISOString() }
      : {}),
  } as unknown as ReservationRecord);

describe('usage over the time held', () => {
  it('measures the span allocation is billed over: held and ran, within the window', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(100), fc.nat(100)), {
          minLength: 1,
          maxLength: 3,
        }),
        fc.array(fc.tuple(fc.nat(100), fc.nat(100)), { maxLength: 3 }),
        fc.tuple(fc.nat(100), fc.nat(100)),
        (held, runs, [w1, w2]) => {
          const h = (n: number) => n * HOUR;
          const reservations = held.map(([a, b]) =>
            reservation(h(Math.min(a, b)), h(Math.max(a, b)) || undefined),
          );
          const spending: Interval[] = runs
            .map(
              ([a, b]): Interval => [
                h(Math.min(a, b)) * 1000,
                h(Math.max(a, b)) * 1000,
              ],
            )
            .sort((x, y) => x[0] - y[0]);
          const disjoint: Interval[] = [];
          for (const [a, b] of spending) {
            const last = disjoint[disjoint.length - 1];
            if (last && a <= last[1])
              disjoint[disjoint.length - 1] = [last[0], Math.max(last[1], b)];
            else disjoint.push([a, b]);
          }
          const start = h(Math.min(w1, w2)) * 1000;
          const end = h(Math.max(w1, w2)) * 1000;
          const span = heldSpan(reservations, disjoint, start, end);
          const spanMs = span.reduce((t, [a, b]) => t + b - a, 0);
          const prices = new Map([
            [
              'l4-ondemand',
              {
                nodeHour: GPU_HOUR_MICROS,
                gpuHour: GPU_HOUR_MICROS,
                pool: { gpusPerNode: 1 },
              },
            ],
          ]) as any;
          const allocation = allocationInRange(
            reservations.slice(0, 1),
            prices,
            start,
            end,
            disjoint,
          );
          // One reservation: the span is exactly the hours it spent.
          const one = heldSpan(reservations.slice(0, 1), disjoint, start, end);
          expect(one.reduce((t, [a, b]) => t + b - a, 0) / 3_600_000).toBe(
            allocation.hours,
          );
          expect(spanMs).toBeLessThanOrEqual(end - start);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('bills a partial lifetime with gaps as price x utilisation x the hours sampled, to the micro-dollar', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(
          { step: 900, interval: 60 },
          { step: 900, interval: 300 },
          { step: 3600, interval: 30 },
          { step: 10800, interval: 300 },
        ),
        fc.integer({ min: 4, max: 48 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.array(
          fc.tuple(
            fc.double({ min: 0, max: 1, noNaN: true }),
            fc.integer({ min: 1, max: 3 }),
          ),
          {
            maxLength: 4,
          },
        ),
        fc.integer({ min: 1, max: 100 }),
        ({ step, interval }, steps, a, b, gapSpecs, percent) => {
          const end = 1_800_000_000 - (1_800_000_000 % step);
          const seconds = steps * step;
          const grid = endAlignedGrid(end, seconds, step);
          const start = end - seconds;
          const align = (t: number) => t - (t % interval);
          const from = align(start + Math.min(a, b) * seconds);
          const until = align(start + Math.max(a, b) * seconds);
          const gaps = gapSpecs.map(([at, n]) => {
            const after = align(from + at * (until - from));
            return [after, after + n * interval] as [number, number];
          });
          const { series, seconds: sampledSeconds } = sampled({
            pod: 'svc-1-x',
            from,
            until,
            gaps,
            interval,
            percent,
            times: grid.times,
            step,
          });
          // A long-lived neighbour says how often the exporter samples.
          const other = sampled({
            pod: 'other-1-x',
            from: start - step,
            until: end,
            gaps: [],
            interval,
            percent: 50,
            times: grid.times,
            step,
          }).series;
          const perStep = samplesPerStep([other.counts], step);
          const span: Interval[] =
            until > from ? [[from * 1000, until * 1000]] : [];
          const figure = spanFigure(
            [series],
            'util',
            span,
            { times: grid.times, step, interval: step / perStep },
            1,
          );
          const allocationMicros = (GPU_HOUR_MICROS * (until - from)) / HOUR;
          const billed =
            figure.value === undefined
              ? 0
              : allocationMicros * figure.value * figure.coverage;
          const plain =
            (GPU_HOUR_MICROS * (percent / 100) * sampledSeconds) / HOUR;
          expect(Math.abs(billed - plain)).toBeLessThanOrEqual(
            1 + plain * 1e-9,
          );
          expect(figure.value ?? percent / 100).toBeCloseTo(percent / 100, 9);
          expect(figure.value === undefined).toBe(sampledSeconds === 0);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('cuts a step at arrivals and departures: shares add up to 1, a pod alone gets its time alone', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.double({ min: 0, max: 1, noNaN: true }),
            fc.double({ min: 0, max: 10, noNaN: true }),
          ),
          { minLength: 1, maxLength: 5 },
        ),
        pods => {
          const parts = pods.map(([p]) => p);
          const rates = pods.map(([, r]) => r);
          const shares = nestedShares(parts, rates);
          expect(shares.reduce((t, s) => t + s, 0)).toBeCloseTo(1, 9);
          for (const s of shares) expect(s).toBeGreaterThanOrEqual(0);
        },
      ),
      { numRuns: 300 },
    );
    // A pod there the whole step and one arriving for its last third, at the same token rate: 5/6 and 1/6.
    const [stayer, arriving] = nestedShares([1, 1 / 3], [50, 50]);
    expect(stayer).toBeCloseTo(5 / 6, 9);
    expect(arriving).toBeCloseTo(1 / 6, 9);
  });

  it('names busy time above a share held, so usage plus it is the busy time of an MPS GPU with per-pod values', () => {
    const step = 900;
    const times = Array.from({ length: 8 }, (_, i) => (i + 1) * step);
    const device = (pod: string, percent: number): DeviceSteps => ({
      namespace: 'ml',
      pod,
      hostname: 'mps-node',
      gpu: '0',
      points: new Map(times.map(t => [t, percent])),
    });
    const metrics = windowMetrics({
      sharedUtil: ok([device('busy-1-x', 70), device('quiet-1-x', 5)]),
      sharedPlacement: ok([]),
      sharedTokens: ok([]),
    });
    const target = (deployment: string): AttributionTarget => ({
      id: deployment,
      namespace: 'ml',
      deployment,
      modelName: deployment,
      tier: 'mps',
      gpuSharePerReplica: 0.25,
    });
    const usage = attributeUsage([target('busy'), target('quiet')], metrics, {
      end: times.at(-1)!,
      seconds: times.length * step,
      step,
    });
    const busy = usage.get('busy')!;
    // 70% of the GPU against a quarter held: the quarter is billed, 45% of the GPU is above the share.
    expect(busy.utilisation!.value).toBe(1);
    expect(busy.aboveShareGpuSeconds! / (times.length * step)).toBeCloseTo(
      0.45,
      9,
    );
    const billed = (u: NonNullable<ReturnType<typeof usage.get>>) =>
      0.25 * u.utilisation!.value * (u.utilisation!.coverage ?? 1);
    expect(
      billed(busy) +
        billed(usage.get('quiet')!) +
        busy.aboveShareGpuSeconds! / (times.length * step),
    ).toBeCloseTo(0.75, 9);
  });

  it('reads the samples per step of a short run with missed scrapes as the most common count', () => {
    // 18 hourly steps of 300 s samples; missed scrapes leave three steps one or two samples short.
    const hourly = (counts: number[]) =>
      new Map(counts.map((n, i) => [(i + 1) * 3600, n] as [number, number]));
    const gappy = [
      12, 12, 10, 12, 12, 12, 11, 12, 12, 12, 12, 11, 12, 12, 12, 12, 12, 12,
    ];
    expect(samplesPerStep([hourly(gappy)], 3600)).toBe(12);
    // An interval that does not divide the step still reads as it is: 600 s in 900 s steps, 400 s, 350 s.
    const alternating = (pattern: number[], n: number) =>
      new Map(
        Array.from(
          { length: n },
          (_, i) =>
            [(i + 1) * 900, pattern[i % pattern.length]] as [number, number],
        ),
      );
    expect(samplesPerStep([alternating([1, 2], 40)], 900)).toBeCloseTo(1.5, 1);
    expect(samplesPerStep([alternating([2, 2, 2, 3], 40)], 900)).toBeCloseTo(
      2.25,
      1,
    );
    expect(
      samplesPerStep([alternating([3, 2, 3, 3, 2, 3, 2], 42)], 900),
    ).toBeCloseTo(2.57, 1);
  });

  it('names busy time above a share over the whole time held when the window ends between two steps', () => {
    // Steps at multiples of 900 s; the window (450, 7650] and the time held with it: the first step is half inside,
    // and the 450 s after the last step are not measured.
    const step = 900;
    const times = Array.from({ length: 8 }, (_, i) => (i + 1) * step);
    const end = times.at(-1)! + step / 2;
    const seconds = 8 * step;
    const device = (pod: string, percent: number): DeviceSteps => ({
      namespace: 'ml',
      pod,
      hostname: 'mps-node',
      gpu: '0',
      points: new Map(times.map(t => [t, percent])),
    });
    const metrics = windowMetrics({
      sharedUtil: ok([device('busy-1-x', 70), device('quiet-1-x', 5)]),
      sharedPlacement: ok([]),
      sharedTokens: ok([]),
    });
    const target = (deployment: string): AttributionTarget => ({
      id: deployment,
      namespace: 'ml',
      deployment,
      modelName: deployment,
      tier: 'mps',
      gpuSharePerReplica: 0.25,
      span: [[(end - seconds) * 1000, end * 1000]],
    });
    const usage = attributeUsage([target('busy'), target('quiet')], metrics, {
      end,
      seconds,
      step,
    });
    const busy = usage.get('busy')!;
    expect(busy.utilisation!.value).toBe(1);
    expect(busy.utilisation!.coverage).toBeCloseTo(1, 9);
    // 45% of the GPU above the quarter, over the 8 steps held as the quarter billed is.
    expect(busy.aboveShareGpuSeconds! / seconds).toBeCloseTo(0.45, 9);
  });
});
