import fc from 'fast-check';
import {
  DeviceSteps,
  PlacementSteps,
  TokenSteps,
} from '../metrics/sharedQueries';
import { attributeUsage, AttributionTarget } from './attribution';
import { ok, windowMetrics } from './__testUtils__/windowMetrics';
import { attributeSharedSteps } from './sharedDevices';

const STEP = 900;

/** A generated history of shared GPUs: what each exporter mode writes, from random pods, values, tokens and gaps. */
interface History {
  steps: number[];
  devices: Array<{
    host: string;
    mode: 'copied' | 'per-pod' | 'one-pod';
    /** Device utilisation per step (percent); per-pod values per pod below. */
    util: number[];
    /** Steps at which the exporter wrote nothing. */
    gaps: boolean[];
    pods: Array<{
      name: string;
      from: number;
      until: number;
      own: number[];
      /** Tokens per step, or no token series. */
      tokens?: number[];
    }>;
  }>;
}

const percent = fc.double({ min: 0, max: 100, noNaN: true });

const historyArbitrary: fc.Arbitrary<History> = fc
  .integer({ min: 1, max: 24 })
  .chain(n =>
    fc.record({
      steps: fc.constant(Array.from({ length: n }, (_, i) => (i + 1) * STEP)),
      devices: fc.array(
        fc.record({
          host: fc.constant(''),
          mode: fc.constantFrom(
            'copied' as const,
            'per-pod' as const,
            'one-pod' as const,
          ),
          util: fc.array(percent, { minLength: n, maxLength: n }),
          gaps: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
          pods: fc.array(
            fc
              .tuple(fc.nat({ max: n - 1 }), fc.nat({ max: n - 1 }))
              .chain(([a, b]) =>
                fc.record({
                  name: fc.constant(''),
                  from: fc.constant(Math.min(a, b)),
                  until: fc.constant(Math.max(a, b)),
                  own: fc.array(percent, { minLength: n, maxLength: n }),
                  tokens: fc.option(
                    fc.array(fc.nat({ max: 1000 }), {
                      minLength: n,
                      maxLength: n,
                    }),
                    { nil: undefined },
                  ),
                }),
              ),
            { minLength: 1, maxLength: 4 },
          ),
        }),
        { minLength: 1, maxLength: 3 },
      ),
    }),
  )
  .map(h => ({
    ...h,
    devices: h.devices.map((d, i) => ({
      ...d,
      host: `node-${i}`,
      pods: d.pods.map((p, j) => ({
        ...p,
        name: `svc${i}x${j}-6f7d8c9b5-p0x7k`,
      })),
    })),
  }));

/** The series each exporter mode writes for a history (plus kube-state placement and tokens). */
function seriesOf(h: History) {
  const util: DeviceSteps[] = [];
  const placement: PlacementSteps[] = [];
  const tokens: TokenSteps[] = [];
  for (const d of h.devices) {
    const present = (i: number) =>
      d.pods.filter(p => i >= p.from && i <= p.until);
    for (const p of d.pods) {
      const points = new Map<number, number>();
      h.steps.forEach((t, i) => {
        if (d.gaps[i] || !present(i).includes(p)) return;
        if (d.mode === 'one-pod' && present(i)[0] !== p) return;
        points.set(t, d.mode === 'per-pod' ? p.own[i] : d.util[i]);
      });
      if (points.size > 0)
        util.push({
          namespace: 'ml',
          pod: p.name,
          hostname: d.host,
          gpu: '0',
          points,
        });
      placement.push({
        namespace: 'ml',
        pod: p.name,
        hostname: d.host,
        steps: new Set(h.steps.filter((_, i) => i >= p.from && i <= p.until)),
      });
      if (p.tokens) {
        tokens.push({
          namespace: 'ml',
          pod: p.name,
          points: new Map(
            h.steps
              .map((t, i) => [t, p.tokens![i]] as [number, number])
              .filter((_, i) => i >= p.from && i <= p.until),
          ),
        });
      }
    }
  }
  return { util, placement, tokens };
}

/**
 * Device busy time (GPU-steps) recomputed from the history's parameters. An exporter reports per-pod values when, at
 * most of the steps two or more pods were there, their values differ; otherwise a step's values are the device's
 * (their mean where they differ, as at a step where a pod arrives or leaves).
 */
function expectedBusy(h: History, d: History['devices'][number]): number {
  const presentAt = (i: number) =>
    d.pods.filter(p => i >= p.from && i <= p.until);
  const differs = (values: number[]) =>
    Math.max(...values) - Math.min(...values) > 1e-6;
  let differ = 0;
  let same = 0;
  h.steps.forEach((_, i) => {
    const present = presentAt(i);
    if (d.mode !== 'per-pod' || d.gaps[i] || present.length < 2) return;
    if (differs(present.map(p => p.own[i]))) differ += 1;
    else same += 1;
  });
  const perPod = differ > same;
  let busy = 0;
  h.steps.forEach((_, i) => {
    const present = presentAt(i);
    if (d.gaps[i] || present.length === 0) return;
    if (d.mode === 'per-pod') {
      const values = present.map(p => p.own[i]);
      const sum = values.reduce((a, b) => a + b, 0);
      busy += perPod ? Math.min(1, sum / 100) : sum / values.length / 100;
    } else busy += d.util[i] / 100;
  });
  return busy;
}

describe('attributeSharedSteps', () => {
  it('gives out every measured step of a shared GPU in full, never more than the device was busy', () => {
    fc.assert(
      fc.property(historyArbitrary, h => {
        const { pods, devices } = attributeSharedSteps({
          steps: h.steps,
          ...seriesOf(h),
        });
        for (const d of h.devices) {
          const device = devices.get(`${d.host}/0`);
          const expected = expectedBusy(h, d);
          expect(device?.busy ?? 0).toBeCloseTo(expected, 9);
          const attributed = pods
            .filter(p => p.device === `${d.host}/0`)
            .reduce((t, p) => t + p.busy, 0);
          expect(attributed).toBeLessThanOrEqual(expected + 1e-9);
          expect(attributed).toBeCloseTo(expected, 9);
          expect(expected).toBeLessThanOrEqual(h.steps.length + 1e-9);
        }
        for (const p of pods) {
          expect(p.busy).toBeLessThanOrEqual(p.deviceBusy + 1e-9);
          expect(p.busy).toBeGreaterThanOrEqual(0);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('bills the busy time of a shared GPU in micro-dollars: the services add up to it, never above', () => {
    const gpuHourMicros = 526_000;
    fc.assert(
      fc.property(historyArbitrary, h => {
        const { util, placement, tokens } = seriesOf(h);
        const metrics = windowMetrics({
          sharedUtil: ok(util),
          sharedPlacement: ok(placement),
          sharedTokens: ok(tokens),
        });
        const window = {
          end: h.steps.at(-1)!,
          seconds: h.steps.length * STEP,
          step: STEP,
        };
        const hours = window.seconds / 3600;
        for (const d of h.devices) {
          // Each pod its own service holding the whole GPU, so no share is capped at 1 (usage never above allocation).
          const share = 1;
          const targets: AttributionTarget[] = d.pods.map(p => ({
            id: p.name,
            namespace: 'ml',
            deployment: p.name.split('-')[0],
            modelName: p.name,
            tier: 'time-sliced',
            gpuSharePerReplica: share,
          }));
          const usage = attributeUsage(targets, metrics, window);
          const allocationMicros = gpuHourMicros * share * hours;
          const billed = targets.map(t => {
            const u = usage.get(t.id)?.utilisation;
            return u
              ? Math.round(allocationMicros * u.value * (u.coverage ?? 1))
              : 0;
          });
          const busyMicros = gpuHourMicros * expectedBusy(h, d) * (STEP / 3600);
          const total = billed.reduce((a, b) => a + b, 0);
          // Rounding: at most half a micro-dollar per service.
          expect(total).toBeLessThanOrEqual(busyMicros + targets.length / 2);
          expect(Math.abs(total - busyMicros)).toBeLessThanOrEqual(
            targets.length / 2,
          );
        }
      }),
      { numRuns: 200 },
    );
  });

  it('splits arrival and departure steps by the rate a pod has while present, not by the cut counter rate() extrapolates', () => {
    // Hourly steps of 12 samples (one every 300 s), the device 40% busy (a value copied to each pod), both pods at 50
    // tokens/s. The visitor arrives 5 samples before the end of step 2 and leaves 7 samples into step 5: at those steps
    // rate() x step extrapolates its counter by half a scrape interval only, (5 - 0.5) x 300 x 50 tokens.
    const step = 3600;
    const steps = [1, 2, 3, 4, 5].map(i => i * step);
    const visitorSamples = [0, 5, 12, 12, 7];
    const pods = [
      { pod: 'steady-6f7d8c9b5-p0x7k', samples: [12, 12, 12, 12, 12] },
      { pod: 'visitor-6f7d8c9b5-q1y8m', samples: visitorSamples },
    ];
    const util: DeviceSteps[] = pods.map(p => ({
      namespace: 'ml',
      pod: p.pod,
      hostname: 't4-node',
      gpu: '0',
      points: new Map(steps.flatMap((t, i) => (p.samples[i] ? [[t, 40]] : []))),
      samples: new Map(
        steps.flatMap((t, i) => (p.samples[i] ? [[t, p.samples[i]]] : [])),
      ),
    }));
    const tokens: TokenSteps[] = pods.map(p => ({
      namespace: 'ml',
      pod: p.pod,
      points: new Map(
        steps.flatMap((t, i) => {
          const n = p.samples[i];
          if (!n) return [];
          return [[t, (n === 12 ? n : n - 0.5) * 300 * 50]];
        }),
      ),
    }));
    const { pods: usage, devices } = attributeSharedSteps({
      steps,
      util,
      placement: [],
      tokens,
    });
    const busyOf = (name: string) =>
      usage.find(u => u.pod.startsWith(name))!.busy;
    // Half of the device's busy time while both are there: 0.4 x (5/12 + 1 + 1 + 7/12) / 2 GPU-steps.
    expect(busyOf('visitor')).toBeCloseTo(0.6, 9);
    expect(busyOf('steady')).toBeCloseTo(2 - 0.6, 9);
    expect(devices.get('t4-node/0')!.busy).toBeCloseTo(2, 9);
  });

  it("keeps a pod's own value on a per-pod MPS GPU when it arrives in the window's last step, as the step read after the window shows", () => {
    // A day's snapshot at hourly steps of 12 samples: the hog is there all along at 45% of the GPU, the light pod
    // arrives 1 sample before the day ends at 10%. Inside the day the two never share a whole step; in the step read
    // after it (not attributed) both are there whole, with their own values: the exporter reports per-pod values.
    const step = 3600;
    const steps = [1, 2, 3].map(i => i * step);
    const after = 4 * step;
    const pods = [
      { pod: 'hog-6f7d8c9b5-p0x7k', value: 45, samples: [12, 12, 12, 12] },
      { pod: 'light-6f7d8c9b5-q1y8m', value: 10, samples: [0, 0, 1, 12] },
    ];
    const times = [...steps, after];
    const util: DeviceSteps[] = pods.map(p => ({
      namespace: 'ml',
      pod: p.pod,
      hostname: 'l4-mps-node',
      gpu: '0',
      points: new Map(
        times.flatMap((t, i) => (p.samples[i] ? [[t, p.value]] : [])),
      ),
      samples: new Map(
        times.flatMap((t, i) => (p.samples[i] ? [[t, p.samples[i]]] : [])),
      ),
    }));
    const { pods: usage } = attributeSharedSteps({
      steps,
      util,
      placement: [],
      tokens: [],
    });
    const light = usage.find(u => u.pod.startsWith('light'))!;
    // Its own 10% for the 1/12 of the last step it was there, not a share of the hog's 45%.
    expect(light.busy).toBeCloseTo(0.1 / 12, 9);
    expect(usage.find(u => u.pod.startsWith('hog'))!.busy).toBeCloseTo(
      0.45 * 3,
      9,
    );
  });
});
