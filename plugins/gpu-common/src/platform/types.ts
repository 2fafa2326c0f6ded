/**
 * The four ways a service can hold GPU capacity.
 *
 * @public
 */
export type SharingTier = 'dedicated' | 'mig' | 'mps' | 'time-sliced';

/**
 * All tiers, ordered from strongest to weakest isolation.
 *
 * @public
 */
export const SHARING_TIERS: readonly SharingTier[] = [
  'dedicated',
  'mig',
  'mps',
  'time-sliced',
];

/**
 * How a pool's nodes are bought.
 *
 * @public
 */
export type CapacityType = 'on-demand' | 'spot';

/**
 * Weight precision of a served model.
 *
 * @public
 */
export type Dtype = 'fp32' | 'bf16' | 'fp16' | 'fp8' | 'int8' | 'int4';

/**
 * The serving engine.
 *
 * @public
 */
export type Runtime = 'vllm' | 'ollama';

/**
 * One MIG profile of a GPU model, e.g. `1g.10gb` on an A100-80GB.
 *
 * @public
 */
export interface MigProfile {
  /** Profile name as NVIDIA writes it, e.g. `3g.40gb`. */
  name: string;
  /** Compute slices the profile takes (out of `GpuModel.migComputeSlices`). */
  computeSlices: number;
  /** Memory of the slice in GB as the profile name states it. */
  memoryGb: number;
  /** Most instances of this profile one GPU can hold when it holds only this profile. */
  maxInstances: number;
  /**
   * Streaming multiprocessors (SMs) of one instance (NVIDIA MIG User Guide), e.g. 14 for an A100-80GB `1g.10gb`;
   * what a dynamic MIG device weighs (`dynamicMigSliceWeights`). Absent when the catalogue does not know it.
   */
  multiprocessors?: number;
}

/**
 * A GPU model the platform knows.
 *
 * @public
 */
export interface GpuModel {
  /** Catalogue name, e.g. `A100-80GB`. */
  name: string;
  /** Memory of the card in GiB (what the sizing fits against). */
  memoryGiB: number;
  /** Value of the `nvidia.com/gpu.product` node label. */
  productLabel: string;
  /** The name NVML reports, which the NVIDIA DRA driver publishes as the device attribute `productName`. */
  productName: string;
  /** Compute slices a MIG-enabled GPU splits into (7, or 4 on an A30); 0 when MIG is unsupported. */
  migComputeSlices: number;
  /** MIG profiles; empty when the GPU has no MIG. */
  migProfiles: MigProfile[];
}

/**
 * A Kubernetes node taint.
 *
 * @public
 */
export interface NodeTaint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

/**
 * How a pool's GPUs are shared, which decides the device-plugin config its nodes select.
 *
 * @public
 */
export type PoolSharing =
  | { type: 'none' }
  /**
   * MIG. `partitioning` `static` (the default): the mixed strategy's fixed layout, profile name to instances per
   * GPU. `dynamic` (DRA pools only): the driver carves MIG devices on demand; `layout` names the profiles services may
   * ask for, each with the most instances of it one GPU may hold.
   */
  | {
      type: 'mig';
      layout: Record<string, number>;
      partitioning?: MigPartitioning;
    }
  | { type: 'mps'; replicas: number }
  | { type: 'time-slicing'; replicas: number };

/**
 * How a MIG pool's GPUs are partitioned: `static`, a fixed layout per GPU (the MIG Manager's, or the driver's static
 * MIG devices); `dynamic`, MIG devices carved on demand by the NVIDIA DRA driver (`DynamicMIG` gate), charged in SMs.
 *
 * @public
 */
export type MigPartitioning = 'static' | 'dynamic';

/**
 * How a pool's GPUs reach pods: `device-plugin`, the NVIDIA device plugin's extended resources (`nvidia.com/gpu`,
 * `nvidia.com/mig-<profile>`), or `dra`, Dynamic Resource Allocation (`resource.k8s.io/v1`) through the NVIDIA DRA
 * driver's DeviceClasses `gpu.nvidia.com` and `mig.nvidia.com`.
 *
 * @public
 */
export type AllocationBackend = 'device-plugin' | 'dra';

/**
 * Why a pool configured for DRA is served by the device plugin instead: `shared-claims-refused`, the MPS and
 * time-sliced tiers share one GPU between services, which through DRA takes one ResourceClaim named by several
 * pods; Kueue (v0.19) marks a workload whose pods name a ResourceClaim inadmissible, and the driver's per-request
 * sharing of one device between claims (`ConsumableShares`) is alpha and refuses MPS.
 *
 * @public
 */
export type DraFallbackReason = 'shared-claims-refused';

/**
 * The allocation a pool gets after its configuration is checked.
 *
 * @public
 */
export interface PoolAllocation {
  /** What serves the pool's GPUs. */
  backend: AllocationBackend;
  /** What `gpu.pools[].allocation` asked for (the default is `device-plugin`). */
  requested: AllocationBackend;
  /** Set when `dra` was asked for and the pool's tier cannot be served through it: why, in a sentence. */
  fallback?: { reason: DraFallbackReason; message: string };
  /**
   * Set on a dynamic MIG pool (`sharing.partitioning: dynamic`): the profiles the driver carves on demand, the SMs one
   * GPU holds, and that in a sentence, for the quote.
   */
  dynamicMig?: DynamicMigAllocation;
}

/**
 * What a dynamic MIG pool carves on demand.
 *
 * @public
 */
export interface DynamicMigAllocation {
  /** The MIG profiles services may ask for, smallest first. */
  profiles: string[];
  /** SMs one GPU holds (its whole-GPU profile's); a slice weighs its SMs out of these. */
  multiprocessorsPerGpu: number;
  /** Each profile to its SMs. */
  multiprocessorsByProfile: Record<string, number>;
  /** The same in a sentence. */
  message: string;
}

/**
 * A GPU node pool: one Kueue ResourceFlavor.
 *
 * @public
 */
export interface Pool {
  /** DNS-1123 name; also the ResourceFlavor name. */
  name: string;
  /** Key into `Platform.gpuModels`. */
  gpuModel: string;
  gpusPerNode: number;
  /** Nodes the pool may grow to (capacity for quotas and placement). */
  maxNodes: number;
  /** Labels that select the pool's nodes (ResourceFlavor nodeLabels). */
  nodeLabels: Record<string, string>;
  nodeTaints: NodeTaint[];
  capacityType: CapacityType;
  /** USD per node-hour, as a decimal string or number from config (e.g. `0.8048`). */
  pricePerNodeHour: string;
  sharing: PoolSharing;
  /** Advertise shared GPUs as `nvidia.com/gpu.shared` (device plugin `renameByDefault`). */
  renameByDefault: boolean;
  /** Device plugin or DRA (`gpu.pools[].allocation`). */
  allocation: PoolAllocation;
  /**
   * The cluster (`gpu.clusters[].name`) whose nodes the pool is; absent when the config leaves it to the only
   * configured cluster (the gpu backend fills it in at start-up) or no cluster is configured.
   */
  cluster?: string;
}

/**
 * What an environment allows.
 *
 * @public
 */
export interface EnvironmentPolicy {
  /** e.g. `dev`, `staging`, `production`. */
  name: string;
  allowedTiers: SharingTier[];
  /** A dedicated request above this many GPUs, counted over all its replicas, needs approval. */
  maxDedicatedGpus: number;
  /** WorkloadPriorityClass the environment's workloads get. */
  priorityClass: string;
  /** Render a PodDisruptionBudget for services in this environment. */
  podDisruptionBudget: boolean;
  /**
   * Names of the clusters the environment's services may run on, each a name or a pattern with `*` (e.g. `prod-*`);
   * absent: every cluster. See `environmentAllowsCluster`.
   */
  clusters?: string[];
}

/**
 * A team's allowance.
 *
 * @public
 */
export interface TeamQuota {
  /** Catalog group name, e.g. `ml-platform`. */
  name: string;
  /** Namespaces the team may deploy to; the first is the default. */
  namespaces: string[];
  /** GPU-equivalents per pool name. A pool not listed has no quota. */
  gpuQuota: Record<string, number>;
  /** USD per month, decimal string. */
  monthlyBudget: string;
}

/**
 * vLLM's `--quantization` method of a Hugging Face checkpoint: `none` for weights stored in the dtype itself (fp32,
 * bf16, fp16), `fp8` for vLLM's on-load FP8 quantisation of a bf16/fp16 checkpoint (or an FP8 checkpoint whose
 * `quantization_config` says `fp8`), `awq` and `gptq` for AutoAWQ and GPTQ checkpoints, `compressed-tensors` for
 * llm-compressor checkpoints (e.g. `RedHatAI/...-quantized.w8a8`, `...-quantized.w4a16`).
 *
 * @public
 */
export type VllmQuantization =
  | 'none'
  | 'fp8'
  | 'awq'
  | 'gptq'
  | 'compressed-tensors';

/**
 * The GGUF quantisation of an Ollama tag: `f16` (16-bit), `q8_0` (8-bit blocks of 32), `q4_0` (4-bit blocks of 32)
 * or `q4_K_M` (4-bit k-quant, some tensors in 6 bits).
 *
 * @public
 */
export type OllamaQuantization = 'f16' | 'q8_0' | 'q4_0' | 'q4_K_M';

/**
 * A Hugging Face checkpoint vLLM loads for one dtype.
 *
 * @public
 */
export interface VllmCheckpoint {
  /** Repository id passed as `--model`, e.g. `hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4`. */
  huggingFaceId: string;
  /** How the repository stores the weights, which decides `--quantization` and the bytes per weight. */
  format: VllmQuantization;
}

/**
 * An Ollama tag for one dtype.
 *
 * @public
 */
export interface OllamaCheckpoint {
  /** e.g. `llama3.1:8b-instruct-q4_K_M`. */
  tag: string;
  format: OllamaQuantization;
}

/**
 * What each runtime loads for one dtype of a model; a runtime without an entry cannot serve the dtype.
 *
 * @public
 */
export interface DtypeCheckpoints {
  vllm?: VllmCheckpoint;
  ollama?: OllamaCheckpoint;
}

/**
 * A model the catalogue can size.
 *
 * @public
 */
export interface ModelSpec {
  /** Catalogue name, e.g. `llama-3.1-8b`. */
  name: string;
  /** The checkpoint per dtype and runtime; a dtype without one for a runtime is unavailable on it. */
  checkpoints: Partial<Record<Dtype, DtypeCheckpoints>>;
  /** Parameters in billions. */
  parametersB: number;
  /**
   * Parameters of the token embeddings and the output head, in billions (vocabulary x hidden size, twice when the
   * head is not tied). vLLM's quantised checkpoints keep them in 16 bits; 0 when unknown.
   */
  embeddingParametersB: number;
  layers: number;
  kvHeads: number;
  headDim: number;
  /** The dtype a request without one gets (when the runtime has no checkpoint in it: see `defaultDtypeFor`). */
  defaultDtype: Dtype;
  /** Largest context the model supports. */
  maxContextLength: number;
}

/**
 * How a team's ClusterQueue counts MIG quota: `gpu-units`, one `gpu.backstage.io/gpu-units` resource that Kueue's
 * resource transformations turn each `nvidia.com/mig-<profile>` request into (the slice's weight in GPU units), or
 * `profile-counts`, a count of instances per profile (for a Kueue without those transformations configured).
 *
 * @public
 */
export type MigQuotaMode = 'gpu-units' | 'profile-counts';

/**
 * Kueue settings of the platform.
 *
 * @public
 */
export interface KueueSettings {
  apiVersion: 'kueue.x-k8s.io/v1beta2' | 'kueue.x-k8s.io/v1beta1';
  /** Cohort all team ClusterQueues join for borrowing. */
  cohort: string;
  /** How MIG quota is counted; absent means `gpu-units` (what the local cluster scripts configure Kueue for). */
  migQuota?: MigQuotaMode;
}

/**
 * The whole platform as configured in the `gpu` section of app-config.
 *
 * @public
 */
export interface Platform {
  gpuModels: Record<string, GpuModel>;
  pools: Pool[];
  environments: EnvironmentPolicy[];
  teams: TeamQuota[];
  models: Record<string, ModelSpec>;
  kueue: KueueSettings;
  /** Hours in a billing month used for projections (730 by default). */
  hoursPerMonth: number;
}
