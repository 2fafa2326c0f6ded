import fc from 'fast-check';
import { GpuDomainError } from '../errors';
import { defaultGpuModels } from '../platform/defaultGpuModels';
import { demoPlatformConfig } from '../platform/demoPlatformConfig';
import { parsePlatform } from '../platform/parsePlatform';
import { Platform, Pool, PoolSharing } from '../platform/types';
import { ServiceRequest } from '../service/types';
import { GB, GIB } from '../sizing/units';
import { migMemorySlices } from './migMemorySlices';
import { planPlacement } from './planPlacement';
import { slicedGpuPacker } from './slicedGpuPacker';
import { plannerItemFor, plannerItemsFor } from './plannerItemFor';
import { PlacementPlan, PlannerItem, PlannerOption } from './types';

function pool(
  name: string,
  gpuModel: string,
  sharing: PoolSharing,
  gpusPerNode = 1,
  maxNodes = 1000,
): Pool {
  return {
    name,
    gpuModel,
    gpusPerNode,
    maxNodes,
    nodeLabels: {},
    nodeTaints: [],
    capacityType: 'on-demand',
    pricePerNodeHour: '1',
    sharing,
    renameByDefault: false,
    allocation: { backend: 'device-plugin', requested: 'device-plugin' },
  };
}

/**
 * A100-80GB profiles on a card with spare memory, and at most 3 instances of 1g.10gb, so slice counts and instance
 * limits alone bound a GPU.
 */
const roomyMig = {
  ...defaultGpuModels['A100-80GB'],
  name: 'roomy',
  memoryGiB: 200,
  migProfiles: defaultGpuModels['A100-80GB'].migProfiles.map(p =>
    p.name === '1g.10gb' ? { ...p, maxInstances: 3 } : p,
  ),
};

function platformWith(pools: Pool[]): Platform {
  return {
    gpuModels: { ...defaultGpuModels, roomy: roomyMig },
    pools,
    environments: [],
    teams: [],
    models: {},
    kueue: { apiVersion: 'kueue.x-k8s.io/v1beta2', cohort: 'gpu' },
    hoursPerMonth: 730,
  };
}

const testPlatform = platformWith([
  pool('a100', 'A100-80GB', { type: 'none' }, 8, 4),
  pool('a100-mig', 'A100-80GB', { type: 'mig', layout: { '1g.10gb': 7 } }),
  pool('a100-40-mig', 'A100-40GB', { type: 'mig', layout: { '1g.5gb': 7 } }),
  pool('a30-mig', 'A30-24GB', { type: 'mig', layout: { '1g.6gb': 4 } }),
  pool('roomy-mig', 'roomy', { type: 'mig', layout: { '1g.10gb': 7 } }),
  pool('l4-mps', 'L4', { type: 'mps', replicas: 4 }),
  pool('t4-ts', 'T4', { type: 'time-slicing', replicas: 10 }),
  pool('small-l4', 'L4', { type: 'none' }, 1, 2),
  pool('big-l4', 'L4', { type: 'none' }, 1, 100),
]);

function dedicated(poolName: string, gpus = 1): PlannerOption {
  return {
    tier: 'dedicated',
    pool: poolName,
    gpusPerReplica: gpus,
    gpuShare: gpus,
    memoryBytes: gpus * 80 * GIB,
  };
}

function mig(poolName: string, profile: string): PlannerOption {
  const gpuModel = testPlatform.pools.find(p => p.name === poolName)!.gpuModel;
  const gpu = testPlatform.gpuModels[gpuModel];
  const spec = gpu.migProfiles.find(p => p.name === profile)!;
  return {
    tier: 'mig',
    pool: poolName,
    migProfile: profile,
    gpusPerReplica: 1,
    gpuShare: spec.computeSlices / gpu.migComputeSlices,
    memoryBytes: spec.memoryGb * GB,
  };
}

function shared(poolName: string): PlannerOption {
  const p = testPlatform.pools.find(x => x.name === poolName)!;
  const replicas = (p.sharing as { replicas: number }).replicas;
  return {
    tier: p.sharing.type === 'mps' ? 'mps' : 'time-sliced',
    pool: poolName,
    gpusPerReplica: 1,
    gpuShare: 1 / replicas,
    memoryBytes: (defaultGpuModels[p.gpuModel].memoryGiB * GIB) / replicas,
  };
}

function items(
  count: number,
  option: PlannerOption,
  replicas = 1,
): PlannerItem[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `${option.pool}-${option.migProfile ?? option.gpusPerReplica}-${i}`,
    replicas,
    options: [option],
  }));
}

/** Recomputes what each physical GPU holds from the assignments alone and checks it against the hardware. */
function expectPhysicallyValid(platform: Platform, plan: PlacementPlan): void {
  const perGpu = new Map<
    string,
    {
      share: number;
      memory: number;
      compute: number;
      memorySlices: number;
      profiles: Map<string, number>;
    }
  >();
  for (const assignment of plan.assignments) {
    const p = platform.pools.find(x => x.name === assignment.pool)!;
    const gpu = platform.gpuModels[p.gpuModel];
    expect(assignment.gpus).toHaveLength(assignment.replicas);
    for (const gpus of assignment.gpus) {
      expect(gpus).toHaveLength(assignment.gpusPerReplica);
      expect(new Set(gpus).size).toBe(gpus.length);
      // A multi-GPU replica stays on one node, within the pool's capacity.
      expect(new Set(gpus.map(g => Math.floor(g / p.gpusPerNode))).size).toBe(
        1,
      );
      for (const g of gpus) {
        expect(g).toBeLessThan(p.maxNodes * p.gpusPerNode);
        const key = `${p.name}/${g}`;
        const state = perGpu.get(key) ?? {
          share: 0,
          memory: 0,
          compute: 0,
          memorySlices: 0,
          profiles: new Map(),
        };
        perGpu.set(key, state);
        if (assignment.tier === 'dedicated') {
          state.share += 1;
          continue;
        }
        state.share += assignment.gpuShare;
        state.memory += assignment.memoryBytes;
        if (assignment.tier === 'mig') {
          const profile = gpu.migProfiles.find(
            x => x.name === assignment.migProfile,
          )!;
          state.compute += profile.computeSlices;
          state.memorySlices += migMemorySlices(gpu, profile);
          state.profiles.set(
            profile.name,
            (state.profiles.get(profile.name) ?? 0) + 1,
          );
        }
      }
    }
  }
  const usedByPool: Record<string, number> = {};
  for (const [key, state] of perGpu) {
    const p = platform.pools.find(x => x.name === key.split('/')[0])!;
    const gpu = platform.gpuModels[p.gpuModel];
    usedByPool[p.name] = (usedByPool[p.name] ?? 0) + 1;
    expect(state.share).toBeLessThanOrEqual(1 + 1e-9);
    expect(state.memory).toBeLessThanOrEqual(gpu.memoryGiB * GIB * (1 + 1e-9));
    if (p.sharing.type === 'mig') {
      expect(state.compute).toBeLessThanOrEqual(gpu.migComputeSlices);
      expect(state.memorySlices).toBeLessThanOrEqual(
        gpu.migComputeSlices === 7 ? 8 : 4,
      );
      for (const [name, count] of state.profiles) {
        expect(count).toBeLessThanOrEqual(
          gpu.migProfiles.find(x => x.name === name)!.maxInstances,
        );
      }
    }
  }
  expect(plan.gpusUsed.byPool).toEqual(usedByPool);
  expect(plan.gpusUsed.total).toBe(perGpu.size);
  expect(plan.gpusUsed.total).toBeGreaterThanOrEqual(plan.lowerBound.total);
  for (const [name, used] of Object.entries(plan.gpusUsed.byPool)) {
    expect(used).toBeGreaterThanOrEqual(plan.lowerBound.byPool[name]);
  }
}

describe('planPlacement with planner items', () => {
  it('puts seven 1g.10gb slices on one A100 and the eighth on another', () => {
    const seven = planPlacement(
      testPlatform,
      items(7, mig('a100-mig', '1g.10gb')),
    );
    expect(seven.gpusUsed).toEqual({ total: 1, byPool: { 'a100-mig': 1 } });
    expect(seven.migLayouts).toEqual([
      { pool: 'a100-mig', layout: { '1g.10gb': 7 }, gpus: 1 },
    ]);
    const eight = planPlacement(
      testPlatform,
      items(8, mig('a100-mig', '1g.10gb')),
    );
    expect(eight.gpusUsed.total).toBe(2);
    expect(eight.lowerBound.total).toBe(2);
    expect(eight.ratio).toBe(1);
  });

  it('respects the per-profile maximum: five 1g.20gb need two GPUs though they take 5 of 7 compute slices', () => {
    const plan = planPlacement(
      testPlatform,
      items(5, mig('a100-mig', '1g.20gb')),
    );
    expect(plan.gpusUsed.total).toBe(2);
    // 10 of 8 memory slices per GPU: the lower bound sees it too.
    expect(plan.lowerBound.total).toBe(2);
    expectPhysicallyValid(testPlatform, plan);
  });

  it('counts memory slices and instance limits even where card memory would allow more', () => {
    // Five 1g.20gb: 5 of 7 compute slices, but at most 4 instances and 10 of 8 memory slices.
    expect(
      planPlacement(testPlatform, items(5, mig('roomy-mig', '1g.20gb')))
        .gpusUsed.total,
    ).toBe(2);
    // Four 1g.10gb: 4 compute and 4 memory slices, but this GPU allows 3 instances.
    expect(
      planPlacement(testPlatform, items(4, mig('roomy-mig', '1g.10gb')))
        .gpusUsed.total,
    ).toBe(2);
    // 3g.40gb + 2g.20gb + 1g.20gb + 1g.20gb: 7 compute slices, 4 + 2 + 2 + 2 = 10 memory slices.
    const plan = planPlacement(testPlatform, [
      ...items(1, mig('roomy-mig', '3g.40gb')),
      ...items(1, mig('roomy-mig', '2g.20gb')),
      ...items(2, mig('roomy-mig', '1g.20gb')),
    ]);
    expect(plan.gpusUsed.total).toBe(2);
    expectPhysicallyValid(testPlatform, plan);
  });

  it('never combines 3g.20gb + 3g.20gb + 1g.5gb on an A100-40GB (9 memory slices)', () => {
    const plan = planPlacement(testPlatform, [
      ...items(2, mig('a100-40-mig', '3g.20gb')),
      ...items(1, mig('a100-40-mig', '1g.5gb')),
    ]);
    expect(plan.gpusUsed.total).toBe(2);
    expectPhysicallyValid(testPlatform, plan);
    // 4g.20gb + 2g.10gb + 1g.5gb does fit one GPU.
    const fits = planPlacement(testPlatform, [
      ...items(1, mig('a100-40-mig', '4g.20gb')),
      ...items(1, mig('a100-40-mig', '2g.10gb')),
      ...items(1, mig('a100-40-mig', '1g.5gb')),
    ]);
    expect(fits.gpusUsed.total).toBe(1);
  });

  it('packs 4 slices per A30 (compute slices out of 4)', () => {
    const plan = planPlacement(
      testPlatform,
      items(9, mig('a30-mig', '1g.6gb')),
    );
    expect(plan.gpusUsed.total).toBe(3);
    expectPhysicallyValid(testPlatform, plan);
  });

  it('puts at most R MPS or time-sliced replicas on a GPU', () => {
    const plan = planPlacement(testPlatform, [
      ...items(3, shared('l4-mps'), 3), // 9 replicas, R = 4
      ...items(1, shared('t4-ts'), 21), // R = 10
    ]);
    expect(plan.gpusUsed.byPool).toEqual({ 'l4-mps': 3, 't4-ts': 3 });
    expect(plan.lowerBound.byPool).toEqual({ 'l4-mps': 3, 't4-ts': 3 });
    expectPhysicallyValid(testPlatform, plan);
  });

  it('keeps multi-GPU dedicated replicas on one node and packs nodes best-fit', () => {
    const plan = planPlacement(testPlatform, [
      ...items(3, dedicated('a100', 4)),
      ...items(2, dedicated('a100', 2)),
      ...items(3, dedicated('a100', 1)),
    ]);
    // 12 + 4 + 3 = 19 GPUs on 3 nodes of 8
    expect(plan.gpusUsed.total).toBe(19);
    expect(plan.ratio).toBe(1);
    expectPhysicallyValid(testPlatform, plan);
    const nodes = new Set(
      plan.assignments.flatMap(a => a.gpus.flat()).map(g => Math.floor(g / 8)),
    );
    expect(nodes.size).toBe(3);
  });

  it('fills GPUs with room after hundreds whose memory slices are taken (7 1g.10gb per GPU, not a GPU per few)', () => {
    // The packer alone: 200 GPUs of four 1g.20gb each (every memory slice taken, 3 compute slices free), then 70
    // 1g.10gb, 7 per GPU. Keyed by free compute slices alone, the full GPUs filled the scan ahead of the ones with
    // room and a GPU was opened for every few (218 in all).
    const a100 = defaultGpuModels['A100-80GB'];
    const packer = slicedGpuPacker(
      {
        units: 7,
        memorySlices: 8,
        memoryBytes: a100.memoryGiB * GIB,
        maxInstances: Object.fromEntries(
          a100.migProfiles.map(p => [p.name, p.maxInstances]),
        ),
      },
      1000,
    );
    const demand = (profile: '1g.10gb' | '1g.20gb') => ({
      units: 1,
      memorySlices: profile === '1g.20gb' ? 2 : 1,
      memoryBytes: (profile === '1g.20gb' ? 20 : 10) * GB,
      migProfile: profile,
    });
    for (let i = 0; i < 800; i++) packer.place(demand('1g.20gb'), 1);
    for (let i = 0; i < 70; i++) packer.place(demand('1g.10gb'), 1);
    expect(packer.gpusUsed()).toBe(210);
    expect(packer.migLayouts()).toEqual([
      { layout: { '1g.20gb': 4 }, gpus: 200 },
      { layout: { '1g.10gb': 7 }, gpus: 10 },
    ]);
  });

  it('mixes MIG profiles on a GPU where first-fit decreasing gives each its own (one 1g.20gb and six 1g.10gb)', () => {
    // First-fit decreasing: three 1g.20gb and two 1g.10gb on one GPU (its 8 memory slices), the other 16 1g.10gb
    // on three more: 4 GPUs. One 1g.20gb with six 1g.10gb fills a GPU exactly: 3, the lower bound.
    const plan = planPlacement(testPlatform, [
      ...items(3, mig('a100-mig', '1g.20gb')),
      ...items(18, mig('a100-mig', '1g.10gb')),
    ]);
    expect(plan.unplaced).toEqual([]);
    expect(plan.gpusUsed.total).toBe(3);
    expect(plan.lowerBound.total).toBe(3);
    expect(plan.migLayouts).toEqual([
      { pool: 'a100-mig', layout: { '1g.10gb': 6, '1g.20gb': 1 }, gpus: 3 },
    ]);
    expectPhysicallyValid(testPlatform, plan);
  });

  it('falls back to the next option when a pool is full, and reports what it cannot place', () => {
    const service = (name: string): PlannerItem => ({
      name,
      replicas: 1,
      options: [dedicated('small-l4'), dedicated('big-l4')],
    });
    const plan = planPlacement(testPlatform, [
      service('a'),
      service('b'),
      service('c'),
    ]);
    expect(
      plan.assignments.map(a => [a.service, a.pool, a.optionIndex]),
    ).toEqual([
      ['a', 'small-l4', 0],
      ['b', 'small-l4', 0],
      ['c', 'big-l4', 1],
    ]);
    const stuck = planPlacement(testPlatform, [
      { name: 'x', replicas: 3, options: [dedicated('small-l4')] },
      { name: 'y', replicas: 1, options: [] },
    ]);
    expect(stuck.assignments).toEqual([]);
    expect(stuck.gpusUsed.total).toBe(0);
    expect(stuck.unplaced).toEqual([
      { service: 'x', reason: 'No room for 3 replica(s) in pool(s) small-l4' },
      {
        service: 'y',
        reason: 'No option: the model fits no slice that policy allows',
      },
    ]);
  });

  it('rejects options a pool cannot offer', () => {
    expect(() =>
      planPlacement(testPlatform, [
        {
          name: 'x',
          replicas: 1,
          options: [{ ...mig('a100-mig', '1g.10gb'), pool: 'l4-mps' }],
        },
      ]),
    ).toThrow(GpuDomainError);
    expect(() =>
      planPlacement(testPlatform, [
        {
          name: 'x',
          replicas: 1,
          options: [{ ...mig('a100-mig', '1g.10gb'), migProfile: '9g.1tb' }],
        },
      ]),
    ).toThrow(/has no MIG profile "9g.1tb"; allowed: 1g.10gb, 1g.20gb/);
    expect(() =>
      planPlacement(testPlatform, [{ name: 'x', replicas: -1, options: [] }]),
    ).toThrow(/allowed: a whole number from 0 to 1000/);
  });

  it('never over-packs a GPU, and uses at least the lower bound, for any mix', () => {
    const option = fc.oneof(
      fc.constantFrom(
        ...[
          '1g.10gb',
          '1g.20gb',
          '2g.20gb',
          '3g.40gb',
          '4g.40gb',
          '7g.80gb',
        ].map(p => mig('a100-mig', p)),
        ...['1g.5gb', '1g.10gb', '2g.10gb', '3g.20gb', '4g.20gb'].map(p =>
          mig('a100-40-mig', p),
        ),
        ...['1g.6gb', '2g.12gb', '4g.24gb'].map(p => mig('a30-mig', p)),
        ...['1g.10gb', '1g.20gb', '2g.20gb', '3g.40gb'].map(p =>
          mig('roomy-mig', p),
        ),
        shared('l4-mps'),
        shared('t4-ts'),
        dedicated('a100', 1),
        dedicated('a100', 2),
        dedicated('a100', 4),
        dedicated('a100', 8),
        dedicated('small-l4'),
      ),
      // Time-sliced replicas with their own memory needs: memory, not slots, can be the limit.
      fc
        .integer({ min: 1, max: 16 })
        .map(gb => ({ ...shared('t4-ts'), memoryBytes: gb * GIB })),
    );
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            replicas: fc.integer({ min: 0, max: 5 }),
            options: fc.array(option, { minLength: 0, maxLength: 3 }),
          }),
          { maxLength: 60 },
        ),
        specs => {
          const plan = planPlacement(
            testPlatform,
            specs.map((spec, i) => ({ name: `s${i}`, ...spec })),
          );
          expectPhysicallyValid(testPlatform, plan);
          expect(plan.assignments.length + plan.unplaced.length).toBe(
            specs.length,
          );
          expect(plan.gpusSaved).toBe(
            plan.allDedicatedGpus - plan.gpusUsed.total,
          );
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('planPlacement with service requests', () => {
  const platform = parsePlatform(demoPlatformConfig);
  const request = (overrides: Partial<ServiceRequest>): ServiceRequest => ({
    name: 'svc',
    team: 'ml-platform',
    model: 'llama-3.1-8b',
    runtime: 'vllm',
    maxModelLen: 8192,
    concurrency: 64,
    replicas: 1,
    environment: 'production',
    ...overrides,
  });

  it('chooses the cheapest slice each environment allows and saves GPUs over all-dedicated', () => {
    const services = [
      request({ name: 'summariser', replicas: 2 }),
      ...Array.from({ length: 6 }, (_, i) =>
        request({
          name: `dev-chat-${i}`,
          environment: 'dev',
          model: 'llama-3.2-3b',
          dtype: 'int4',
          maxModelLen: 2048,
          concurrency: 4,
        }),
      ),
      ...Array.from({ length: 3 }, (_, i) =>
        request({
          name: `staging-${i}`,
          environment: 'staging',
          model: 'llama-3.2-3b',
          dtype: 'int4',
          maxModelLen: 2048,
          concurrency: 4,
        }),
      ),
    ];
    const plan = planPlacement(platform, services);
    expect(plan.unplaced).toEqual([]);
    const byService = Object.fromEntries(
      plan.assignments.map(a => [a.service, a]),
    );
    expect(byService.summariser).toMatchObject({
      tier: 'dedicated',
      pool: 'l4-ondemand',
    });
    for (let i = 0; i < 6; i++) {
      expect(byService[`dev-chat-${i}`]).toMatchObject({
        tier: 'time-sliced',
        pool: 't4-timeslice',
      });
    }
    for (let i = 0; i < 3; i++) {
      expect(byService[`staging-${i}`]).toMatchObject({
        tier: 'mps',
        pool: 'l4-mps',
      });
    }
    // 2 dedicated L4 + 2 T4s for six 1/4 shares + 1 L4 for three 1/4 MPS shares.
    expect(plan.gpusUsed).toEqual({
      total: 5,
      byPool: { 'l4-ondemand': 2, 't4-timeslice': 2, 'l4-mps': 1 },
    });
    expect(plan.lowerBound.total).toBe(5);
    expect(plan.allDedicatedGpus).toBe(11);
    expect(plan.gpusSaved).toBe(6);
    expectPhysicallyValid(platform, plan);
  });

  it('ranks many requests as it ranks each alone, sharing the work between requests of one size', () => {
    const requests: ServiceRequest[] = [];
    let n = 0;
    for (const environment of ['production', 'staging', 'dev']) {
      for (const replicas of [1, 2, 4, 8]) {
        for (const dtype of [undefined, 'int4', 'fp8'] as const) {
          for (const maxModelLen of [2048, 8192]) {
            for (const model of ['llama-3.2-3b', 'llama-3.1-8b']) {
              // Twice each: the second is served from the first.
              for (const team of ['ml-platform', 'search']) {
                requests.push(
                  request({
                    name: `svc-${n++}`,
                    team,
                    environment,
                    replicas,
                    dtype,
                    maxModelLen,
                    model,
                  }),
                );
              }
            }
          }
        }
      }
    }
    requests.push(
      request({ name: 'mig-only', tier: 'mig' }),
      request({ name: 'one-pool', pool: 'l4-ondemand' }),
      request({ name: 'few-sequences', concurrentSequences: 2 }),
    );
    expect(plannerItemsFor(platform, requests)).toEqual(
      requests.map(r => plannerItemFor(platform, r)),
    );
    // Above the environment's dedicated-GPU limit, dedicated options come after the others.
    const production = plannerItemsFor(platform, [
      request({ name: 'a', replicas: 1 }),
      request({ name: 'b', replicas: 8 }),
    ]);
    expect(production[0].options[0].tier).toBe('dedicated');
    expect(production[1].options[0].tier).not.toBe('dedicated');
    expect(() =>
      plannerItemsFor(platform, [request({ environment: 'moon' })]),
    ).toThrow(GpuDomainError);
  });
});
