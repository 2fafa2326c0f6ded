import { z } from 'zod';
import { strict } from './strictObject';
import { SHARING_TIERS } from './types';

const int = (min: number, max: number) => z.number().int().min(min).max(max);

/** A non-negative amount of money: a number, or a decimal string such as `"0.8048"`. */
const decimal = z.union([z.number(), z.string()], {
  error: 'must be a non-negative decimal such as 0.8048 (number or string)',
});

const dtype = z.enum(['fp32', 'bf16', 'fp16', 'fp8', 'int8', 'int4']);

const migProfileConfig = strict({
  name: z.string(),
  maxInstances: int(1, 8),
  computeSlices: int(1, 8).optional(),
  memoryGb: z.number().positive().max(10000).optional(),
  multiprocessors: int(1, 1000).optional(),
});

const gpuModelConfig = strict({
  memoryGiB: z.number().positive().max(10000).optional(),
  productLabel: z.string().optional(),
  productName: z.string().min(1).max(256).optional(),
  migComputeSlices: int(0, 8).optional(),
  migProfiles: z.array(migProfileConfig).optional(),
});

/** The checkpoints of one dtype: a Hugging Face repository for vLLM and its format, an Ollama tag and its GGUF type. */
const checkpointConfig = strict({
  huggingFaceId: z.string().min(1).optional(),
  format: z
    .enum(['none', 'fp8', 'awq', 'gptq', 'compressed-tensors'])
    .optional(),
  ollamaTag: z.string().min(1).optional(),
  ollamaFormat: z.enum(['f16', 'q8_0', 'q4_0', 'q4_K_M']).optional(),
});

const modelConfig = strict({
  /** The default dtype's Hugging Face checkpoint (kept for configs written before `checkpoints`). */
  huggingFaceId: z.string().min(1).optional(),
  /** The default dtype's Ollama tag (kept for configs written before `checkpoints`). */
  ollamaTag: z.string().min(1).optional(),
  checkpoints: z.partialRecord(dtype, checkpointConfig).optional(),
  parametersB: z.number().positive().max(100000).optional(),
  embeddingParametersB: z.number().min(0).max(100000).optional(),
  layers: int(1, 1000).optional(),
  kvHeads: int(1, 1024).optional(),
  headDim: int(1, 4096).optional(),
  defaultDtype: dtype.optional(),
  maxContextLength: int(1, 100_000_000).optional(),
});

const sharingConfig = z.discriminatedUnion('type', [
  strict({ type: z.literal('none') }),
  strict({
    type: z.literal('mig'),
    layout: z.record(z.string(), int(1, 8)),
    partitioning: z.enum(['static', 'dynamic']).optional(),
  }),
  strict({ type: z.literal('mps'), replicas: int(2, 48) }),
  strict({ type: z.literal('time-slicing'), replicas: int(2, 48) }),
]);

const taintConfig = strict({
  key: z.string(),
  value: z.string().optional(),
  effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']),
});

const poolConfig = strict({
  name: z.string(),
  gpuModel: z.string(),
  gpusPerNode: int(1, 16),
  maxNodes: int(1, 100000),
  nodeLabels: z.record(z.string(), z.string()).optional(),
  nodeTaints: z.array(taintConfig).optional(),
  capacityType: z.enum(['on-demand', 'spot']).optional(),
  pricePerNodeHour: decimal,
  sharing: sharingConfig.optional(),
  renameByDefault: z.boolean().optional(),
  allocation: z.enum(['device-plugin', 'dra']).optional(),
  /** The `gpu.clusters` entry the pool's nodes are in; checked against the clusters by the gpu backend. */
  cluster: z.string().min(1).optional(),
  /** Validated by `parsePlatformOperations` (the pool's Karpenter NodePool), not part of the platform model. */
  karpenter: z.unknown().optional(),
});

const environmentConfig = strict({
  name: z.string(),
  allowedTiers: z.array(z.enum(SHARING_TIERS)).min(1).optional(),
  maxDedicatedGpus: int(1, 64).optional(),
  priorityClass: z.string().optional(),
  podDisruptionBudget: z.boolean().optional(),
  clusters: z.array(z.string().min(1)).min(1).optional(),
});

const teamConfig = strict({
  name: z.string(),
  namespaces: z.array(z.string()).min(1).optional(),
  gpuQuota: z.record(z.string(), z.number().min(0).max(1_000_000)).optional(),
  monthlyBudget: decimal,
});

/**
 * The raw shape of the `gpu` section of app-config, before defaults and cross-checks (see `parsePlatform`).
 * `config.d.ts` declares the same shape for Backstage's config schema.
 *
 * @public
 */
export const platformConfigSchema = strict({
  gpuModels: z.record(z.string(), gpuModelConfig).optional(),
  models: z.record(z.string(), modelConfig).optional(),
  pools: z.array(poolConfig).optional(),
  environments: z.array(environmentConfig).min(1).optional(),
  teams: z.array(teamConfig).optional(),
  kueue: strict({
    apiVersion: z
      .enum(['kueue.x-k8s.io/v1beta2', 'kueue.x-k8s.io/v1beta1'])
      .optional(),
    cohort: z.string().optional(),
    migQuota: z.enum(['gpu-units', 'profile-counts']).optional(),
  }).optional(),
  hoursPerMonth: z.number().positive().max(744).optional(),
  /** Read by the gpu backend's cluster config (`gpu.clusters`), not part of the platform model. */
  clusters: z.array(z.unknown()).optional(),
  /** Read by the gpu backend's Kueue reconciler (`gpu.reconcile`), not part of the platform model. */
  reconcile: z.unknown().optional(),
  /** Read by the gpu backend's Prometheus client (`gpu.prometheus`), not part of the platform model. */
  prometheus: z.unknown().optional(),
  /** Read by the gpu backend's status refresh (`gpu.statusRefresh`), not part of the platform model. */
  statusRefresh: z.unknown().optional(),
  /** Read by the gpu backend's applier (`gpu.apply`), not part of the platform model. */
  apply: z.unknown().optional(),
  /** Read by the gpu backend's approval queue (`gpu.approvals.maxPendingPerTeam`), not part of the platform model. */
  approvals: z.unknown().optional(),
  /** Read by the gpu backend's admission (`gpu.admission.whenOverPoolCapacity`), not part of the platform model. */
  admission: z.unknown().optional(),
  /** Validated by `readPlatformGroups` (`gpu.permissions.platformGroups`), not part of the platform model. */
  permissions: z.unknown().optional(),
  /** Validated by `parsePlatformOperations` (Karpenter NodePools), not part of the platform model. */
  karpenter: z.unknown().optional(),
  /** Validated by `parsePlatformOperations` (PrometheusRule alerts), not part of the platform model. */
  alerts: z.unknown().optional(),
  /** Validated by `parseServiceDefaults` (`gpu.serviceDefaults`), not part of the platform model. */
  serviceDefaults: z.unknown().optional(),
  /** Read by the gpu backend's provisional services (`gpu.services.confirmWithin`), not part of the platform model. */
  services: z.unknown().optional(),
  /** Validated by `readManagedApiPrice` (`gpu.managedApi`), not part of the platform model. */
  managedApi: z.unknown().optional(),
  /** Read by the gpu backend's GitOps follower (`gpu.gitops.mergeWithin`, `checkFrequency`), not part of the platform model. */
  gitops: z.unknown().optional(),
});

/**
 * The `gpu` section of app-config as written (numbers or strings for money, optional fields unset).
 *
 * @public
 */
export type PlatformConfig = z.input<typeof platformConfigSchema>;
