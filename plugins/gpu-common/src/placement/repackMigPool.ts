import { SlicedGpuCapacity } from './slicedGpuPacker';
import { SliceDemand } from './PoolPacker';

/** One replica placed in a MIG pool: what it takes, and where the repack puts it. */
export interface MigReplica {
  demand: SliceDemand;
}

/** A repack of a MIG pool's replicas: the GPU of each replica (in the order given) and the GPUs used. */
export interface MigRepack {
  gpuOf: number[];
  gpusUsed: number;
  layouts: Array<{ layout: Record<string, number>; gpus: number }>;
}

interface DemandType {
  key: string;
  demand: SliceDemand;
  replicas: number[];
}

/** Layouts enumerated per pool at most; beyond it the repack is not attempted. */
const MAX_LAYOUTS = 20_000;

/**
 * Packs a MIG pool's replicas GPU layout by GPU layout: of every combination of the replicas' profiles one GPU can
 * hold (compute slices, memory slices, card memory, per-profile maximum), it fills GPUs with the one that uses the
 * most memory slices, then the most compute slices, as often as the replicas left allow. First-fit decreasing places
 * the larger profiles first and fills GPUs with them alone (four 1g.20gb of an A100-80GB leave 3 compute slices
 * idle, seven 1g.10gb a memory slice), where one 1g.20gb with six 1g.10gb fills a GPU exactly; this finds such
 * mixes. Undefined when the layouts are too many to enumerate.
 */
export function repackMigPool(
  capacity: SlicedGpuCapacity,
  replicas: readonly MigReplica[],
): MigRepack | undefined {
  const byKey = new Map<string, DemandType>();
  replicas.forEach(({ demand }, index) => {
    const key = `${demand.migProfile}|${demand.units}|${demand.memorySlices}|${demand.memoryBytes}`;
    let type = byKey.get(key);
    if (!type) {
      type = { key, demand, replicas: [] };
      byKey.set(key, type);
    }
    type.replicas.push(index);
  });
  const types = [...byKey.values()];
  const memoryLimit = capacity.memoryBytes * (1 + 1e-9);

  // Every non-empty combination of the types one GPU holds, as counts per type.
  const layouts: Array<{ counts: number[]; slices: number; units: number }> =
    [];
  const counts = types.map(() => 0);
  let tooMany = false;
  const profileCount = new Map<string, number>();
  const visit = (
    from: number,
    units: number,
    slices: number,
    bytes: number,
  ) => {
    if (tooMany) return;
    if (units > 0) {
      layouts.push({ counts: [...counts], slices, units });
      if (layouts.length > MAX_LAYOUTS) {
        tooMany = true;
        return;
      }
    }
    for (let t = from; t < types.length; t++) {
      const d = types[t].demand;
      const profile = d.migProfile ?? '';
      const used = profileCount.get(profile) ?? 0;
      if (
        units + d.units > capacity.units ||
        slices + d.memorySlices > capacity.memorySlices ||
        bytes + d.memoryBytes > memoryLimit ||
        (d.migProfile !== undefined &&
          used >= (capacity.maxInstances[d.migProfile] ?? 0))
      ) {
        continue;
      }
      counts[t]++;
      profileCount.set(profile, used + 1);
      visit(t, units + d.units, slices + d.memorySlices, bytes + d.memoryBytes);
      counts[t]--;
      profileCount.set(profile, used);
    }
  };
  visit(0, 0, 0, 0);
  if (tooMany) return undefined;
  // Most memory slices, then most compute slices first.
  layouts.sort((a, b) => b.slices - a.slices || b.units - a.units);

  const left = types.map(t => t.replicas.length);
  const next = types.map(() => 0);
  const gpuOf = new Array<number>(replicas.length);
  const used = new Map<
    string,
    { layout: Record<string, number>; gpus: number }
  >();
  let gpus = 0;
  for (const layout of layouts) {
    let times = Infinity;
    layout.counts.forEach((c, t) => {
      if (c > 0) times = Math.min(times, Math.floor(left[t] / c));
    });
    if (!(times > 0) || times === Infinity) continue;
    for (let g = 0; g < times; g++) {
      for (let t = 0; t < types.length; t++) {
        for (let i = 0; i < layout.counts[t]; i++) {
          gpuOf[types[t].replicas[next[t]++]] = gpus;
        }
      }
      gpus++;
    }
    layout.counts.forEach((c, t) => {
      left[t] -= c * times;
    });
    const described: Record<string, number> = {};
    layout.counts.forEach((c, t) => {
      if (c === 0) return;
      const profile = types[t].demand.migProfile ?? '';
      described[profile] = (described[profile] ?? 0) + c;
    });
    const sorted = Object.fromEntries(
      Object.entries(described).sort(([a], [b]) => a.localeCompare(b)),
    );
    const key = JSON.stringify(sorted);
    const entry = used.get(key) ?? { layout: sorted, gpus: 0 };
    entry.gpus += times;
    used.set(key, entry);
    if (left.every(l => l === 0)) break;
  }
  if (left.some(l => l > 0)) return undefined;
  return {
    gpuOf,
    gpusUsed: gpus,
    layouts: [...used.values()].sort((a, b) => b.gpus - a.gpus),
  };
}
