import { Pool } from '../platform/types';
import {
  allocationInRange,
  allocationMicrosInRange,
  HeldAllocation,
  HeldPeriod,
} from './allocationInRange';
import { poolPrices } from './poolPrices';

function pool(name: string, pricePerNodeHour: string, gpusPerNode = 1): Pool {
  return {
    name,
    gpuModel: 'L4',
    gpusPerNode,
    maxNodes: 4,
    nodeLabels: {},
    nodeTaints: [],
    capacityType: 'on-demand',
    pricePerNodeHour,
    sharing: { type: 'none' },
    renameByDefault: false,
    allocation: { backend: 'device-plugin', requested: 'device-plugin' },
  };
}

const prices = poolPrices({
  pools: [pool('l4', '0.8048'), pool('a100-x8', '32.7726', 8)],
});
const START = Date.UTC(2026, 11, 1);
const END = Date.UTC(2027, 0, 1);
const HOUR = 3_600_000;

function asAllocation(period: HeldPeriod): HeldAllocation {
  return {
    pool: period.pool,
    gpuEquivalents: period.gpuEquivalents,
    monthlyCostMicros: 0,
    heldAt: new Date(period.heldMs).toISOString(),
    releasedAt:
      period.releasedMs === undefined
        ? undefined
        : new Date(period.releasedMs).toISOString(),
  };
}

describe('allocationMicrosInRange', () => {
  it('costs only the part of each held period within the range, at its pool price', () => {
    const periods: HeldPeriod[] = [
      // Held before the range and still held: from the start of the range to its end.
      { pool: 'l4', gpuEquivalents: 1, heldMs: START - 5 * HOUR },
      // Released before the range: nothing.
      {
        pool: 'l4',
        gpuEquivalents: 1,
        heldMs: START - 5 * HOUR,
        releasedMs: START - HOUR,
      },
      // Held after the range: nothing.
      { pool: 'l4', gpuEquivalents: 1, heldMs: END + HOUR },
      // A pool no longer configured: nothing.
      { pool: 'removed', gpuEquivalents: 1, heldMs: START },
      // Two hours of half an A100 (a node of 8 at 32.7726 per hour).
      {
        pool: 'a100-x8',
        gpuEquivalents: 0.5,
        heldMs: START + HOUR,
        releasedMs: START + 3 * HOUR,
      },
    ];
    // 744 hours x 0.8048 + 2 hours x 0.5 x 32.7726 / 8.
    expect(allocationMicrosInRange(periods, prices, START, END)).toBe(
      598_771_200 + 4_096_575,
    );
  });

  it('is what allocationInRange counts when every held second spends, rounding included', () => {
    // A fixed pseudo-random ledger: periods around and across the range, some shorter than a second.
    let seed = 7;
    const random = () => {
      seed = (seed * 48271) % 2147483647;
      return seed / 2147483647;
    };
    const periods: HeldPeriod[] = Array.from({ length: 500 }, () => {
      const heldMs = START + Math.round((random() - 0.2) * (END - START));
      const lengthMs =
        random() < 0.1
          ? Math.round(random() * 1500)
          : Math.round(random() * 20 * 24 * HOUR);
      return {
        pool: random() < 0.5 ? 'l4' : 'a100-x8',
        gpuEquivalents: [1, 0.5, 1 / 7, 3 / 7, 2][Math.floor(random() * 5)],
        heldMs,
        releasedMs: random() < 0.3 ? undefined : heldMs + lengthMs,
      };
    });
    const now = START + 10 * 24 * HOUR + 1234;
    for (const [from, to] of [
      [START, now],
      [now, END],
      [START, END],
    ]) {
      expect(allocationMicrosInRange(periods, prices, from, to)).toBe(
        allocationInRange(periods.map(asAllocation), prices, from, to)
          .allocationMicros,
      );
    }
  });
});
