import {
  DYNAMIC_MIG_COUNTER,
  DYNAMIC_MIG_DEVICE_CLASS,
  DYNAMIC_MIG_DEVICE_CLASS_MAPPING,
  DYNAMIC_MIG_RESOURCE,
  dynamicMigDeviceClass,
} from '../kueue/dynamicMig';
import { NVIDIA_DEVICE_CLASS_MAPPINGS } from '../kueue/renderDeviceClassMappings';
import { simulatedDynamicMigResourceSlices } from './simulatedDra';

type Counters = Record<string, { value: string }>;
interface Slice {
  metadata: { name: string };
  spec: {
    driver: string;
    nodeName: string;
    pool: { name: string; generation: number; resourceSliceCount: number };
    sharedCounters?: Array<{ name: string; counters: Counters }>;
    devices?: Array<{
      name: string;
      attributes: Record<string, { string?: string }>;
      capacity: Counters;
      consumesCounters: Array<{ counterSet: string; counters: Counters }>;
    }>;
  };
}

function slices(gpus: number): Slice[] {
  return simulatedDynamicMigResourceSlices({
    node: 'kwok-a100-dyn-0',
    productLabel: 'NVIDIA-A100-SXM4-80GB',
    gpus,
  }) as unknown as Slice[];
}

/** Whether devices (by name) can be allocated together: no counter of any set consumed beyond what it holds. */
function fitTogether(all: Slice[], names: string[]): boolean {
  const available = new Map<string, number>();
  for (const s of all)
    for (const set of s.spec.sharedCounters ?? [])
      for (const [counter, { value }] of Object.entries(set.counters))
        available.set(`${set.name}/${counter}`, Number(value));
  const devices = all.flatMap(s => s.spec.devices ?? []);
  for (const name of names) {
    const device = devices.find(d => d.name === name)!;
    for (const c of device.consumesCounters)
      for (const [counter, { value }] of Object.entries(c.counters)) {
        const key = `${c.counterSet}/${counter}`;
        const left = (available.get(key) ?? 0) - Number(value);
        if (left < 0) return false;
        available.set(key, left);
      }
  }
  return true;
}

describe('simulatedDynamicMigResourceSlices', () => {
  it('publishes the counters in a slice of their own and every placement of every profile, as the driver with DynamicMIG', () => {
    const [counters, devices, ...rest] = slices(1);
    expect(rest).toEqual([]);
    for (const s of [counters, devices]) {
      expect(s.spec).toMatchObject({
        driver: 'gpu.nvidia.com',
        nodeName: 'kwok-a100-dyn-0',
        pool: {
          name: 'kwok-a100-dyn-0',
          generation: 1,
          resourceSliceCount: 2,
        },
      });
    }
    expect(counters.spec.devices).toBeUndefined();
    expect(devices.spec.sharedCounters).toBeUndefined();
    expect(counters.spec.sharedCounters).toEqual([
      {
        name: 'gpu-0-counter-set',
        counters: {
          multiprocessors: { value: '98' },
          memory: { value: String(79.25e9) },
          ...Object.fromEntries(
            Array.from({ length: 8 }, (_, i) => [
              `memory-slice-${i}`,
              { value: '1' },
            ]),
          ),
        },
      },
    ]);
    expect(devices.spec.devices!.map(d => d.name)).toEqual([
      'gpu-0',
      'gpu-0-mig-1g10gb-19-0',
      'gpu-0-mig-1g10gb-19-1',
      'gpu-0-mig-1g10gb-19-2',
      'gpu-0-mig-1g10gb-19-3',
      'gpu-0-mig-1g10gb-19-4',
      'gpu-0-mig-1g10gb-19-5',
      'gpu-0-mig-1g10gb-19-6',
      'gpu-0-mig-1g20gb-15-0',
      'gpu-0-mig-1g20gb-15-2',
      'gpu-0-mig-1g20gb-15-4',
      'gpu-0-mig-1g20gb-15-6',
      'gpu-0-mig-2g20gb-14-0',
      'gpu-0-mig-2g20gb-14-2',
      'gpu-0-mig-2g20gb-14-4',
      'gpu-0-mig-3g40gb-9-0',
      'gpu-0-mig-3g40gb-9-4',
      'gpu-0-mig-4g40gb-5-0',
      'gpu-0-mig-7g80gb-0-0',
    ]);
    const [gpu, ...migs] = devices.spec.devices!;
    expect(gpu.attributes.type).toEqual({ string: 'gpu' });
    expect(gpu.attributes.uuid.string).toMatch(/^GPU-/);
    expect(gpu.consumesCounters).toEqual([
      {
        counterSet: 'gpu-0-counter-set',
        counters: counters.spec.sharedCounters![0].counters,
      },
    ]);
    const threeG = migs.find(d => d.name === 'gpu-0-mig-3g40gb-9-4')!;
    expect(threeG.attributes).toMatchObject({
      type: { string: 'mig' },
      profile: { string: '3g.40gb' },
      productName: { string: 'NVIDIA A100-SXM4-80GB' },
      parentUUID: gpu.attributes.uuid,
    });
    // Not created yet: no MIG UUID.
    expect(threeG.attributes.uuid).toBeUndefined();
    expect(threeG.consumesCounters).toEqual([
      {
        counterSet: 'gpu-0-counter-set',
        counters: {
          multiprocessors: { value: '42' },
          memory: { value: String(39.5e9) },
          'memory-slice-4': { value: '1' },
          'memory-slice-5': { value: '1' },
          'memory-slice-6': { value: '1' },
          'memory-slice-7': { value: '1' },
        },
      },
    ]);
  });

  it('lets the counters decide what fits one GPU: profiles side by side, never the whole GPU beside a MIG device', () => {
    const all = slices(1);
    expect(
      fitTogether(all, ['gpu-0-mig-3g40gb-9-0', 'gpu-0-mig-2g20gb-14-4']),
    ).toBe(true);
    // Two 3g.40gb and a 1g.10gb: 98 SMs, but the 1g.10gb has no memory slice left.
    expect(
      fitTogether(all, [
        'gpu-0-mig-3g40gb-9-0',
        'gpu-0-mig-3g40gb-9-4',
        'gpu-0-mig-1g10gb-19-6',
      ]),
    ).toBe(false);
    // 3g.40gb + 2g.20gb leave 28 SMs and two slices: no second 3g.40gb, anywhere.
    for (const second of ['gpu-0-mig-3g40gb-9-0', 'gpu-0-mig-3g40gb-9-4'])
      expect(
        fitTogether(all, [
          'gpu-0-mig-3g40gb-9-0',
          'gpu-0-mig-2g20gb-14-4',
          second,
        ]),
      ).toBe(false);
    // Seven 1g.10gb fill the GPU's 98 SMs.
    expect(
      fitTogether(
        all,
        Array.from({ length: 7 }, (_, i) => `gpu-0-mig-1g10gb-19-${i}`),
      ),
    ).toBe(true);
    expect(fitTogether(all, ['gpu-0', 'gpu-0-mig-1g10gb-19-0'])).toBe(false);
  });

  it('keeps at most 64 devices a slice, whole GPUs per slice, one counter set per GPU', () => {
    const all = slices(4);
    const [counters, ...devices] = all;
    expect(counters.spec.sharedCounters!.map(s => s.name)).toEqual([
      'gpu-0-counter-set',
      'gpu-1-counter-set',
      'gpu-2-counter-set',
      'gpu-3-counter-set',
    ]);
    expect(devices.map(s => s.spec.devices!.length)).toEqual([57, 19]);
    expect(all.every(s => s.spec.pool.resourceSliceCount === 3)).toBe(true);
    expect(new Set(all.map(s => s.metadata.name)).size).toBe(3);
  });

  it('refuses a product without MIG facts', () => {
    expect(() =>
      simulatedDynamicMigResourceSlices({
        node: 'n',
        productLabel: 'NVIDIA-L4',
        gpus: 1,
      }),
    ).toThrow(/no MIG facts for NVIDIA-L4/);
  });
});

describe('Kueue charging of dynamic MIG', () => {
  it('maps a DeviceClass of its own through the driver’s multiprocessors counter, apart from the per-device classes', () => {
    expect(DYNAMIC_MIG_DEVICE_CLASS_MAPPING).toEqual({
      name: DYNAMIC_MIG_RESOURCE,
      deviceClassNames: [DYNAMIC_MIG_DEVICE_CLASS],
      sources: [
        {
          counter: {
            name: DYNAMIC_MIG_COUNTER,
            driver: 'gpu.nvidia.com',
            deviceSelector: {
              cel: {
                expression: "device.attributes['gpu.nvidia.com'].type == 'mig'",
              },
            },
          },
        },
      ],
    });
    // Kueue v0.19 charges a class per device or through counters, not both: the classes never overlap.
    const perDevice = NVIDIA_DEVICE_CLASS_MAPPINGS.flatMap(
      m => m.deviceClassNames,
    );
    expect(perDevice).not.toContain(DYNAMIC_MIG_DEVICE_CLASS);
    expect(NVIDIA_DEVICE_CLASS_MAPPINGS.every(m => !m.sources)).toBe(true);
    expect(dynamicMigDeviceClass()).toEqual({
      apiVersion: 'resource.k8s.io/v1',
      kind: 'DeviceClass',
      metadata: { name: 'mig-dynamic.gpu.backstage.io' },
      spec: {
        selectors: [
          {
            cel: {
              expression:
                "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'",
            },
          },
        ],
      },
    });
  });
});
