import {
  Checkpoint,
  defaultDtypeFor,
  Dtype,
  EnvironmentPolicy,
  estimateMemory,
  findEnvironment,
  findGpuModel,
  findModel,
  findPool,
  findTeam,
  checkScaleToZero,
  GpuDomainError,
  GpuModel,
  isDns1123Label,
  isLabelValue,
  listAllowed,
  MAX_SERVICE_NAME_LENGTH,
  ModelSpec,
  Placement,
  Platform,
  Pool,
  poolTier,
  requireCheckpoint,
  ServiceRequest,
  Slice,
  slicesFor,
  TeamQuota,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { ServiceRenderOptions } from './types';

/** Everything the renderers of one service need, resolved and checked once. */
export interface ServiceContext {
  request: ServiceRequest;
  options: ServiceRenderOptions;
  team: TeamQuota;
  namespace: string;
  model: ModelSpec;
  dtype: Dtype;
  /** What the runtime loads: the catalogue's checkpoint of the model in `dtype`. */
  checkpoint: Checkpoint;
  environment: EnvironmentPolicy;
  pool: Pool;
  /** The pool's GPU model. */
  gpuModel: GpuModel;
  slice: Slice;
  weightsBytes: number;
  /** Most replicas that can run at once. */
  maxReplicas: number;
}

function positiveInteger(field: string, value: number) {
  if (!Number.isInteger(value) || value < 1) {
    throw new GpuDomainError(
      'OUT_OF_RANGE',
      `${field} must be a positive integer, got ${value}`,
    );
  }
}

function findSlice(
  platform: Platform,
  pool: Pool,
  placement: Placement,
): Slice {
  const tier = poolTier(pool);
  if (placement.tier !== tier) {
    throw new GpuDomainError(
      'UNKNOWN_TIER',
      `Pool ${pool.name} offers the ${tier} tier, not ${placement.tier}; allowed: ${tier}`,
      { allowed: [tier] },
    );
  }
  const slices = slicesFor(platform, pool);
  const slice = slices.find(
    s =>
      s.gpusPerReplica === placement.gpusPerReplica &&
      (tier !== 'mig' || s.migProfile === placement.migProfile),
  );
  if (!slice) {
    const allowed = slices.map(s =>
      s.migProfile
        ? `MIG profile ${s.migProfile}`
        : `${s.gpusPerReplica} GPU(s) per replica`,
    );
    throw new GpuDomainError(
      'OUT_OF_RANGE',
      `Pool ${pool.name} has no slice for ${
        placement.migProfile
          ? `MIG profile ${placement.migProfile}`
          : `${placement.gpusPerReplica} GPU(s) per replica`
      }; allowed: ${listAllowed(allowed)}`,
      { allowed },
    );
  }
  return slice;
}

function checkAutoscaling(request: ServiceRequest) {
  const autoscaling = request.autoscaling;
  if (!autoscaling) return;
  if (request.runtime !== 'vllm') {
    throw new GpuDomainError(
      'OUT_OF_RANGE',
      'Autoscaling scales on vllm:num_requests_waiting, which Ollama does not export; allowed: autoscaling with runtime vllm, or no autoscaling',
    );
  }
  const { minReplicas, maxReplicas, targetQueueDepth, engine } = autoscaling;
  if (
    !Number.isInteger(minReplicas) ||
    minReplicas < 0 ||
    minReplicas > maxReplicas
  ) {
    throw new GpuDomainError(
      'OUT_OF_RANGE',
      `autoscaling.minReplicas ${minReplicas} must be an integer from 0 to maxReplicas (${maxReplicas})`,
    );
  }
  positiveInteger('autoscaling.maxReplicas', maxReplicas);
  positiveInteger('autoscaling.targetQueueDepth', targetQueueDepth);
  if (engine === 'hpa' && minReplicas < 1) {
    throw new GpuDomainError(
      'OUT_OF_RANGE',
      'autoscaling.minReplicas 0 (scale to zero) needs engine keda; allowed with hpa: 1 or more',
    );
  }
}

/**
 * Resolves and checks a request and its placement against the platform. Policy (allowed tiers, quota, budget) is
 * not checked: an approver may have let an exception through; only what cannot be rendered is refused.
 */
export function resolveServiceContext(
  platform: Platform,
  request: ServiceRequest,
  placement: Placement,
  options: ServiceRenderOptions,
): ServiceContext {
  if (!isDns1123Label(request.name, MAX_SERVICE_NAME_LENGTH)) {
    throw new GpuDomainError(
      'INVALID_NAME',
      `Service name "${request.name}" must be a DNS-1123 label of at most ${MAX_SERVICE_NAME_LENGTH} characters (lowercase letters, digits and "-", starting and ending with a letter or digit)`,
    );
  }
  if (!options.serviceId || !isLabelValue(options.serviceId)) {
    throw new GpuDomainError(
      'INVALID_NAME',
      `Service id "${options.serviceId}" must be a Kubernetes label value: 1 to 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit`,
    );
  }
  positiveInteger('maxModelLen', request.maxModelLen);
  positiveInteger('concurrency', request.concurrency);
  positiveInteger('replicas', request.replicas);
  positiveInteger('placement.gpusPerReplica', placement.gpusPerReplica);
  checkAutoscaling(request);
  checkScaleToZero(request, options);

  const team = findTeam(platform, request.team);
  const namespace = request.namespace ?? team.namespaces[0];
  if (!team.namespaces.includes(namespace)) {
    throw new GpuDomainError(
      'INVALID_NAME',
      `Team ${
        team.name
      } may not deploy to namespace ${namespace}; allowed: ${listAllowed(
        team.namespaces,
      )}`,
      { allowed: team.namespaces },
    );
  }
  const model = findModel(platform, request.model);
  const environment = findEnvironment(platform, request.environment);
  if (request.pool !== undefined && request.pool !== placement.pool) {
    throw new GpuDomainError(
      'UNKNOWN_POOL',
      `The placement's pool ${placement.pool} differs from the requested pool ${request.pool}; allowed: ${request.pool}`,
      { allowed: [request.pool] },
    );
  }
  if (request.tier !== undefined && request.tier !== placement.tier) {
    throw new GpuDomainError(
      'UNKNOWN_TIER',
      `The placement's tier ${placement.tier} differs from the requested tier ${request.tier}; allowed: ${request.tier}`,
      { allowed: [request.tier] },
    );
  }
  const pool = findPool(platform, placement.pool);
  const slice = findSlice(platform, pool, placement);
  if (request.runtime === 'ollama' && slice.gpusPerReplica > 1) {
    throw new GpuDomainError(
      'OUT_OF_RANGE',
      `Ollama has no tensor parallelism; allowed: 1 GPU per replica, got ${slice.gpusPerReplica}`,
    );
  }
  const dtype = request.dtype ?? defaultDtypeFor(model, request.runtime);
  // A dtype the catalogue has no checkpoint of for the runtime is never rendered.
  const checkpoint = requireCheckpoint(model, dtype, request.runtime);
  const { weightsBytes } = estimateMemory(model, {
    dtype,
    maxModelLen: request.maxModelLen,
    concurrency: request.concurrency,
    runtime: request.runtime,
    gpusPerReplica: slice.gpusPerReplica,
  });
  return {
    request,
    options,
    team,
    namespace,
    model,
    dtype,
    checkpoint,
    environment,
    pool,
    gpuModel: findGpuModel(platform, pool.gpuModel),
    slice,
    weightsBytes,
    maxReplicas: request.autoscaling
      ? Math.max(request.autoscaling.maxReplicas, request.replicas)
      : request.replicas,
  };
}
