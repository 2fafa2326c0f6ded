import { ConfigReader } from '@backstage/config';
import { GpuDomainError } from '../errors';
import { demoPlatformConfig } from './demoPlatformConfig';
import { parsePlatform } from './parsePlatform';
import { readPlatformConfig } from './readPlatformConfig';
import { readPlatformGroups } from './readPlatformGroups';

type Json = any;

/** A deep copy of the demo config, changed by `mutate`. */
function demoWith(mutate: (config: Json) => void): Json {
  const config = structuredClone(demoPlatformConfig) as Json;
  mutate(config);
  return config;
}

function configError(raw: unknown): GpuDomainError {
  try {
    parsePlatform(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(GpuDomainError);
    expect((error as GpuDomainError).code).toBe('INVALID_CONFIG');
    expect((error as Error).name).toBe('InputError');
    return error as GpuDomainError;
  }
  throw new Error('expected parsePlatform to throw');
}

describe('parsePlatform', () => {
  it('parses the demo config', () => {
    const platform = parsePlatform(demoPlatformConfig);
    expect(platform.pools.map(p => p.name)).toEqual([
      'l4-ondemand',
      'spot-l4',
      'a100-mig',
      'l4-mps',
      't4-timeslice',
      'h100',
    ]);
    expect(platform.pools[0]).toEqual({
      name: 'l4-ondemand',
      gpuModel: 'L4',
      gpusPerNode: 1,
      maxNodes: 4,
      nodeLabels: {
        'node.kubernetes.io/instance-type': 'g6.xlarge',
        'karpenter.sh/capacity-type': 'on-demand',
        'gpu.example.com/pool': 'l4-ondemand',
      },
      nodeTaints: [
        { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' },
      ],
      capacityType: 'on-demand',
      pricePerNodeHour: '0.8048',
      sharing: { type: 'none' },
      renameByDefault: false,
      allocation: { backend: 'device-plugin', requested: 'device-plugin' },
    });
    expect(platform.pools.find(p => p.name === 'a100-mig')).toMatchObject({
      pricePerNodeHour: '27.447',
      sharing: {
        type: 'mig',
        layout: { '1g.10gb': 2, '2g.20gb': 1, '3g.40gb': 1 },
      },
    });
    expect(platform.pools.find(p => p.name === 'l4-mps')).toMatchObject({
      sharing: { type: 'mps', replicas: 4 },
      renameByDefault: true,
    });
    expect(platform.teams.map(t => t.name)).toEqual(['ml-platform', 'search']);
    expect(platform.teams[1]).toMatchObject({
      namespaces: ['search', 'batch'],
      gpuQuota: { 'spot-l4': 6 },
      monthlyBudget: '4000',
    });
    expect(platform.kueue).toEqual({
      apiVersion: 'kueue.x-k8s.io/v1beta2',
      cohort: 'gpu',
      migQuota: 'gpu-units',
    });
    expect(platform.hoursPerMonth).toBe(730);
  });

  it('accepts the sections other parts of the backend read, such as gpu.approvals', () => {
    const platform = readPlatformConfig(
      new ConfigReader({
        gpu: { ...demoPlatformConfig, approvals: { maxPendingPerTeam: 60 } },
      }),
    );
    expect(platform.teams.map(t => t.name)).toEqual(
      demoPlatformConfig.teams!.map(t => t.name),
    );
  });

  it('accepts gpu.services and gpu.managedApi, which the backend reads (an unknown key stopped it at start-up)', () => {
    const platform = readPlatformConfig(
      new ConfigReader({
        gpu: {
          ...demoPlatformConfig,
          services: {
            confirmWithin: { seconds: 60 },
            confirmationCheckFrequency: { seconds: 5 },
          },
          managedApi: {
            name: 'Example API',
            inputUsdPerMillionTokens: 0.5,
            outputUsdPerMillionTokens: 1.5,
          },
        },
      }),
    );
    expect(platform.teams.map(t => t.name)).toEqual(
      demoPlatformConfig.teams!.map(t => t.name),
    );
  });

  it('accepts gpu.permissions, which readPlatformGroups reads', () => {
    const config = new ConfigReader({
      gpu: {
        ...demoPlatformConfig,
        permissions: { platformGroups: ['group:default/gpu-admins'] },
      },
    });
    expect(readPlatformConfig(config).teams.map(t => t.name)).toEqual(
      demoPlatformConfig.teams!.map(t => t.name),
    );
    expect(readPlatformGroups(config)).toEqual(['group:default/gpu-admins']);
  });

  it('applies defaults to an absent or empty gpu section', () => {
    for (const raw of [undefined, {}]) {
      const platform = parsePlatform(raw);
      expect(platform.pools).toEqual([]);
      expect(platform.teams).toEqual([]);
      expect(Object.keys(platform.gpuModels)).toContain('A100-80GB');
      expect(Object.keys(platform.models)).toContain('llama-3.1-8b');
      expect(platform.kueue).toEqual({
        apiVersion: 'kueue.x-k8s.io/v1beta2',
        cohort: 'gpu',
        migQuota: 'gpu-units',
      });
      expect(platform.hoursPerMonth).toBe(730);
      expect(platform.environments).toEqual([
        {
          name: 'dev',
          allowedTiers: ['dedicated', 'mig', 'mps', 'time-sliced'],
          maxDedicatedGpus: 2,
          priorityClass: 'gpu-dev',
          podDisruptionBudget: false,
        },
        {
          name: 'staging',
          allowedTiers: ['dedicated', 'mig', 'mps'],
          maxDedicatedGpus: 2,
          priorityClass: 'gpu-staging',
          podDisruptionBudget: false,
        },
        {
          name: 'production',
          allowedTiers: ['dedicated', 'mig'],
          maxDedicatedGpus: 4,
          priorityClass: 'gpu-production',
          podDisruptionBudget: true,
        },
      ]);
    }
  });

  it('fills pool defaults and takes unset environment fields from the default of the same name', () => {
    const platform = parsePlatform({
      pools: [
        {
          name: 'p',
          gpuModel: 'T4',
          gpusPerNode: 1,
          maxNodes: 1,
          pricePerNodeHour: '0.526',
        },
      ],
      environments: [
        { name: 'production', allowedTiers: ['dedicated'] },
        { name: 'research', allowedTiers: ['mps', 'mps', 'time-sliced'] },
      ],
      teams: [{ name: 'solo', monthlyBudget: 100 }],
      kueue: { apiVersion: 'kueue.x-k8s.io/v1beta1' },
    });
    expect(platform.pools[0]).toMatchObject({
      capacityType: 'on-demand',
      sharing: { type: 'none' },
      renameByDefault: false,
      nodeLabels: {},
      nodeTaints: [],
    });
    expect(platform.environments).toEqual([
      {
        name: 'production',
        allowedTiers: ['dedicated'],
        maxDedicatedGpus: 4,
        priorityClass: 'gpu-production',
        podDisruptionBudget: true,
      },
      {
        name: 'research',
        allowedTiers: ['mps', 'time-sliced'],
        maxDedicatedGpus: 2,
        priorityClass: 'gpu-research',
        podDisruptionBudget: false,
      },
    ]);
    expect(platform.teams[0]).toEqual({
      name: 'solo',
      namespaces: ['solo'],
      gpuQuota: {},
      monthlyBudget: '100',
    });
    expect(platform.kueue).toEqual({
      apiVersion: 'kueue.x-k8s.io/v1beta1',
      cohort: 'gpu',
      migQuota: 'gpu-units',
    });
  });

  it('extends and overrides the GPU and model catalogues', () => {
    const platform = parsePlatform({
      gpuModels: {
        L4: { productLabel: 'NVIDIA-L4-custom' },
        B200: {
          memoryGiB: 180,
          productLabel: 'NVIDIA-B200',
          migComputeSlices: 7,
          migProfiles: [
            { name: '1g.23gb', maxInstances: 7 },
            { name: 'big', computeSlices: 7, memoryGb: 180, maxInstances: 1 },
          ],
        },
      },
      models: {
        'llama-3.1-8b': { maxContextLength: 8192 },
        'gemma-2-9b': {
          huggingFaceId: 'google/gemma-2-9b-it',
          ollamaTag: 'gemma2:9b',
          parametersB: 9.24,
          layers: 42,
          kvHeads: 8,
          headDim: 256,
          maxContextLength: 8192,
        },
      },
    });
    expect(platform.gpuModels.L4).toMatchObject({
      memoryGiB: 24,
      productLabel: 'NVIDIA-L4-custom',
    });
    expect(platform.gpuModels.B200.migProfiles).toEqual([
      { name: '1g.23gb', computeSlices: 1, memoryGb: 23, maxInstances: 7 },
      { name: 'big', computeSlices: 7, memoryGb: 180, maxInstances: 1 },
    ]);
    expect(platform.models['llama-3.1-8b']).toMatchObject({
      layers: 32,
      maxContextLength: 8192,
    });
    expect(platform.models['gemma-2-9b']).toMatchObject({
      name: 'gemma-2-9b',
      defaultDtype: 'bf16',
      headDim: 256,
    });
  });

  it.each<[string, (c: Json) => void, string, string]>([
    [
      'a negative price',
      c => {
        c.pools[2].pricePerNodeHour = -1;
      },
      'gpu.pools[2].pricePerNodeHour',
      'non-negative decimal',
    ],
    [
      'a price in words',
      c => {
        c.pools[0].pricePerNodeHour = 'cheap';
      },
      'gpu.pools[0].pricePerNodeHour',
      'such as 0.8048',
    ],
    [
      'an absurd price',
      c => {
        c.pools[5].pricePerNodeHour = '5500000';
      },
      'gpu.pools[5].pricePerNodeHour',
      'implausible; allowed: 0 to 10000',
    ],
    [
      'an absurd budget',
      c => {
        c.teams[1].monthlyBudget = 1e12;
      },
      'gpu.teams[1].monthlyBudget',
      'implausible; allowed: 0 to 1000000000',
    ],
    [
      'an unknown GPU model',
      c => {
        c.pools[1].gpuModel = 'Z100';
      },
      'gpu.pools[1].gpuModel',
      'allowed: T4, A10G, L4',
    ],
    [
      'a pool name that is not DNS-1123',
      c => {
        c.pools[3].name = 'L4_MPS';
      },
      'gpu.pools[3].name',
      'DNS-1123',
    ],
    [
      'a duplicate pool name',
      c => {
        c.pools[1].name = 'l4-ondemand';
      },
      'gpu.pools[1].name',
      'duplicate pool name',
    ],
    [
      'MIG on a GPU without MIG',
      c => {
        c.pools[0].sharing = { type: 'mig', layout: { '1g.10gb': 1 } };
      },
      'gpu.pools[0].sharing',
      'L4 has no MIG',
    ],
    [
      'a MIG profile the GPU does not have',
      c => {
        c.pools[2].sharing.layout = { '1g.5gb': 2 };
      },
      'gpu.pools[2].sharing.layout["1g.5gb"]',
      'allowed: 1g.10gb, 1g.20gb, 2g.20gb, 3g.40gb, 4g.40gb or 7g.80gb',
    ],
    [
      'a MIG layout over the compute slices',
      c => {
        c.pools[2].sharing.layout = { '3g.40gb': 2, '2g.20gb': 1 };
      },
      'gpu.pools[2].sharing.layout',
      'takes 8 compute slices; A100-80GB has 7',
    ],
    [
      'a MIG layout over the memory',
      c => {
        c.pools[2].sharing.layout = { '1g.20gb': 4, '3g.40gb': 1 };
      },
      'gpu.pools[2].sharing.layout',
      'takes 120 GB; A100-80GB has 80 GiB',
    ],
    [
      'more instances of a profile than the GPU holds',
      c => {
        c.pools[2].sharing.layout = { '3g.40gb': 3 };
      },
      'gpu.pools[2].sharing.layout["3g.40gb"]',
      'holds at most 2 x 3g.40gb',
    ],
    [
      'MPS with 1 replica',
      c => {
        c.pools[3].sharing.replicas = 1;
      },
      'gpu.pools[3].sharing.replicas',
      '>=2',
    ],
    [
      'time-slicing with 49 replicas',
      c => {
        c.pools[4].sharing.replicas = 49;
      },
      'gpu.pools[4].sharing.replicas',
      '<=48',
    ],
    [
      'an unknown sharing type',
      c => {
        c.pools[4].sharing = { type: 'vgpu' };
      },
      'gpu.pools[4].sharing.type',
      "Expected 'none' | 'mig' | 'mps' | 'time-slicing'",
    ],
    [
      'renameByDefault on a dedicated pool',
      c => {
        c.pools[0].renameByDefault = true;
      },
      'gpu.pools[0].renameByDefault',
      'mps or time-slicing',
    ],
    [
      'zero GPUs per node',
      c => {
        c.pools[5].gpusPerNode = 0;
      },
      'gpu.pools[5].gpusPerNode',
      '>=1',
    ],
    [
      'an unknown capacity type',
      c => {
        c.pools[1].capacityType = 'reserved';
      },
      'gpu.pools[1].capacityType',
      '"on-demand"|"spot"',
    ],
    [
      'a misspelt pool key',
      c => {
        c.pools[0].pricePerNodeHr = 1;
      },
      'gpu.pools[0]',
      'unknown key "pricePerNodeHr"; allowed keys are name, gpuModel',
    ],
    [
      'a bad node label key',
      c => {
        c.pools[0].nodeLabels['bad key'] = 'x';
      },
      'gpu.pools[0].nodeLabels["bad key"]',
      'not a valid label key',
    ],
    [
      'more than 8 node labels',
      c => {
        for (let i = 0; i < 8; i++) c.pools[0].nodeLabels[`l${i}`] = 'x';
      },
      'gpu.pools[0].nodeLabels',
      'at most 8',
    ],
    [
      'a bad taint effect',
      c => {
        c.pools[0].nodeTaints[0].effect = 'Never';
      },
      'gpu.pools[0].nodeTaints[0].effect',
      'NoSchedule',
    ],
    [
      'a team quota on an unknown pool',
      c => {
        c.teams[1].gpuQuota.a10g = 2;
      },
      'gpu.teams[1].gpuQuota.a10g',
      'allowed: l4-ondemand, spot-l4, a100-mig, l4-mps, t4-timeslice or h100',
    ],
    [
      'a negative quota',
      c => {
        c.teams[0].gpuQuota.h100 = -1;
      },
      'gpu.teams[0].gpuQuota.h100',
      '>=0',
    ],
    [
      'a team name that is not DNS-1123',
      c => {
        c.teams[0].name = 'ML Platform';
      },
      'gpu.teams[0].name',
      'DNS-1123',
    ],
    [
      'a namespace that is not DNS-1123',
      c => {
        c.teams[0].namespaces[1] = 'ml.serving';
      },
      'gpu.teams[0].namespaces[1]',
      'DNS-1123',
    ],
    [
      'a namespace shared by two teams',
      c => {
        c.teams[1].namespaces.push('ml-serving');
      },
      'gpu.teams[1].namespaces[2]',
      'already belongs to team "ml-platform"',
    ],
    [
      'a budget in exponent notation',
      c => {
        c.teams[0].monthlyBudget = '1e5';
      },
      'gpu.teams[0].monthlyBudget',
      'non-negative decimal',
    ],
    [
      'an unknown tier',
      c => {
        c.environments[1].allowedTiers = ['dedicated', 'shared'];
      },
      'gpu.environments[1].allowedTiers[1]',
      '"dedicated"|"mig"|"mps"|"time-sliced"',
    ],
    [
      'a new environment without tiers',
      c => {
        c.environments.push({ name: 'qa' });
      },
      'gpu.environments[3].allowedTiers',
      'must list its allowedTiers',
    ],
    [
      'a priority class that is not DNS-1123',
      c => {
        c.environments[0].priorityClass = 'GPU_Dev';
      },
      'gpu.environments[0].priorityClass',
      'DNS-1123',
    ],
    [
      'an unknown Kueue version',
      c => {
        c.kueue.apiVersion = 'kueue.x-k8s.io/v1alpha1';
      },
      'gpu.kueue.apiVersion',
      'kueue.x-k8s.io/v1beta2',
    ],
    [
      'absurd hours per month',
      c => {
        c.hoursPerMonth = 10000;
      },
      'gpu.hoursPerMonth',
      '<=744',
    ],
  ])('reports %s by its key path', (_, mutate, path, allowed) => {
    const error = configError(demoWith(mutate));
    expect(error.message).toContain(`${path}: `);
    expect(error.message).toContain(allowed);
  });

  it('never shares objects with the built-in catalogues', () => {
    const platform = parsePlatform({});
    platform.gpuModels['A100-80GB'].migProfiles.pop();
    platform.models['llama-3.1-8b'].layers = 1;
    const again = parsePlatform({});
    expect(again.gpuModels['A100-80GB'].migProfiles).toHaveLength(6);
    expect(again.models['llama-3.1-8b'].layers).toBe(32);
  });

  it('reports bad GPU and model catalogue entries by key', () => {
    const error = configError({
      gpuModels: {
        X1: { memoryGiB: 16 },
        X2: {
          memoryGiB: 16,
          productLabel: 'X2',
          migComputeSlices: 7,
          migProfiles: [{ name: 'half', maxInstances: 2 }],
        },
      },
      models: { 'my-model': { layers: 10 } },
    });
    expect(error.message).toContain(
      'gpu.gpuModels.X1: a GPU model that is not built in needs memoryGiB and productLabel',
    );
    expect(error.message).toContain(
      'gpu.gpuModels.X2.migProfiles[0].name: "half" is not a MIG profile name',
    );
    expect(error.message).toContain(
      'gpu.models.my-model: a model that is not built in needs parametersB, kvHeads, headDim, maxContextLength',
    );
    expect(error.message).toContain(
      'gpu.models.my-model: a model that is not built in needs a checkpoint',
    );
  });

  it('names every problem at once', () => {
    const error = configError(
      demoWith(c => {
        c.pools[0].pricePerNodeHour = -2;
        c.pools[1].gpuModel = 'nope';
        c.teams[0].gpuQuota.nowhere = 1;
      }),
    );
    expect(error.message).toMatch(/^Invalid gpu config, 3 problems: /);
  });

  it('rejects a gpu section that is not an object', () => {
    expect(configError([]).message).toContain('gpu: Invalid input');
  });
});

describe('readPlatformConfig', () => {
  it('reads the gpu section of app-config', () => {
    const platform = readPlatformConfig(
      new ConfigReader({ gpu: demoPlatformConfig }),
    );
    expect(platform.pools).toHaveLength(6);
  });

  it('defaults when the gpu section is absent', () => {
    expect(readPlatformConfig(new ConfigReader({})).pools).toEqual([]);
  });

  it('leaves the backend-only sections (clusters, reconcile, prometheus) to the backend', () => {
    const platform = readPlatformConfig(
      new ConfigReader({
        gpu: {
          ...demoPlatformConfig,
          clusters: [{ name: 'prod', mode: 'dry-run' }],
          reconcile: { enabled: false },
          prometheus: { baseUrl: 'http://127.0.0.1:9090', timeout: 5000 },
        },
      }),
    );
    expect(platform.pools).toHaveLength(6);
  });
});
