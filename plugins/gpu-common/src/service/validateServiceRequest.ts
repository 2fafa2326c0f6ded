import { z } from 'zod';
import { GpuDomainError, GpuDomainErrorCode, listAllowed } from '../errors';
import { availableDtypes, defaultDtypeFor } from '../platform/checkpoints';
import { formatConfigPath } from '../platform/configIssues';
import {
  findEnvironment,
  findModel,
  findPool,
  findTeam,
  teamNamespace,
} from '../platform/lookups';
import { Platform, SHARING_TIERS, SharingTier } from '../platform/types';
import { poolTier } from '../tiers/poolTier';
import { DTYPES, RUNTIMES, serviceRequestSchema } from './serviceRequestSchema';
import { ServiceRequest } from './types';

/**
 * Validates a service request against the platform and returns it with `namespace` (the team's first namespace)
 * and `dtype` (the runtime's default for the model, `defaultDtypeFor`) filled in. A dtype without a checkpoint is
 * not refused here (the quote lists it as unavailable); creating and rendering refuse it (`requireCheckpoint`). Checks, in order: structure and ranges, team, model (and an Ollama
 * tag for the Ollama runtime), environment, namespace, pool and tier (the environment must allow the tier, the pool
 * must offer it), a measured capacity only with a pool, max-model-len within the model's context, autoscaling bounds.
 *
 * @throws GpuDomainError with code `INVALID_NAME`, `UNKNOWN_TEAM`, `UNKNOWN_MODEL`, `UNKNOWN_ENVIRONMENT`,
 *   `UNKNOWN_POOL`, `UNKNOWN_TIER`, `TIER_FORBIDDEN` or `OUT_OF_RANGE`, saying what is allowed.
 * @public
 */
export function validateServiceRequest(
  platform: Platform,
  raw: unknown,
): ServiceRequest {
  const parsed = serviceRequestSchema.safeParse(raw);
  if (!parsed.success) {
    throw structuralError(platform, parsed.error.issues);
  }
  const request = parsed.data;

  const team = findTeam(platform, request.team);
  const model = findModel(platform, request.model);
  if (availableDtypes(model, request.runtime).length === 0) {
    const allowed = Object.values(platform.models)
      .filter(m => availableDtypes(m, request.runtime).length > 0)
      .map(m => m.name);
    throw new GpuDomainError(
      'UNKNOWN_MODEL',
      `Model "${model.name}" has no ${
        request.runtime === 'ollama' ? 'Ollama tag' : 'Hugging Face checkpoint'
      }, so it cannot run on ${request.runtime}; models for ${
        request.runtime
      }: ${listAllowed(allowed)}`,
      { allowed },
    );
  }
  const environment = findEnvironment(platform, request.environment);

  const namespace = teamNamespace(team, request.namespace, 'deploy to');

  checkTierAndPool(
    platform,
    request,
    environment.allowedTiers,
    environment.name,
  );

  if (request.measuredTokensPerSecond !== undefined && !request.pool) {
    throw new GpuDomainError(
      'OUT_OF_RANGE',
      `measuredTokensPerSecond ${
        request.measuredTokensPerSecond
      } needs the pool it was measured on; allowed: with pool set (${listAllowed(
        platform.pools.map(p => p.name),
      )})`,
      { allowed: platform.pools.map(p => p.name) },
    );
  }

  if (
    request.concurrentSequences !== undefined &&
    request.concurrentSequences > request.concurrency
  ) {
    throw new GpuDomainError(
      'OUT_OF_RANGE',
      `concurrentSequences ${request.concurrentSequences} is above concurrency ${request.concurrency}: the engine runs at most concurrency (--max-num-seqs) sequences at once; allowed: 1 to ${request.concurrency}`,
    );
  }

  if (request.maxModelLen > model.maxContextLength) {
    throw new GpuDomainError(
      'OUT_OF_RANGE',
      `maxModelLen ${request.maxModelLen} exceeds the context of ${model.name}; allowed: 1 to ${model.maxContextLength}`,
    );
  }

  if (request.latencyBudget && request.runtime !== 'vllm') {
    throw new GpuDomainError(
      'OUT_OF_RANGE',
      `latencyBudget needs the vllm runtime: ${request.runtime} exports no request latency metrics to measure or alert on; allowed: runtime vllm, or no latencyBudget`,
      { allowed: ['vllm'] },
    );
  }

  const autoscaling = request.autoscaling;
  if (autoscaling) {
    if (autoscaling.minReplicas > autoscaling.maxReplicas) {
      throw new GpuDomainError(
        'OUT_OF_RANGE',
        `autoscaling.minReplicas ${autoscaling.minReplicas} is above autoscaling.maxReplicas ${autoscaling.maxReplicas}; allowed: minReplicas <= maxReplicas`,
      );
    }
    if (autoscaling.engine === 'hpa' && autoscaling.minReplicas < 1) {
      throw new GpuDomainError(
        'OUT_OF_RANGE',
        'autoscaling.minReplicas 0 (scale to zero) needs engine keda; allowed with hpa: 1 to 64',
      );
    }
    if (
      request.replicas < autoscaling.minReplicas ||
      request.replicas > autoscaling.maxReplicas
    ) {
      throw new GpuDomainError(
        'OUT_OF_RANGE',
        `replicas ${request.replicas} is outside the autoscaling range; allowed: ${autoscaling.minReplicas} to ${autoscaling.maxReplicas}`,
      );
    }
  }

  return {
    ...request,
    namespace,
    dtype: request.dtype ?? defaultDtypeFor(model, request.runtime),
  };
}

function checkTierAndPool(
  platform: Platform,
  request: z.output<typeof serviceRequestSchema>,
  allowedTiers: SharingTier[],
  environmentName: string,
) {
  const forbidden = (tier: SharingTier) =>
    new GpuDomainError(
      'TIER_FORBIDDEN',
      `Environment "${environmentName}" does not allow the ${tier} tier; allowed: ${listAllowed(
        allowedTiers,
      )}`,
      { allowed: [...allowedTiers] },
    );

  if (request.tier && !allowedTiers.includes(request.tier)) {
    throw forbidden(request.tier);
  }
  if (request.pool) {
    const pool = findPool(platform, request.pool);
    const offered = poolTier(pool);
    if (request.tier && offered !== request.tier) {
      const allowed = platform.pools
        .filter(p => poolTier(p) === request.tier)
        .map(p => p.name);
      throw new GpuDomainError(
        'UNKNOWN_POOL',
        `Pool "${pool.name}" offers the ${offered} tier, not ${
          request.tier
        }; pools with ${request.tier}: ${listAllowed(allowed)}`,
        { allowed },
      );
    }
    if (!allowedTiers.includes(offered)) {
      throw forbidden(offered);
    }
  } else if (request.tier) {
    const tier = request.tier;
    if (!platform.pools.some(p => poolTier(p) === tier)) {
      const allowed = SHARING_TIERS.filter(
        t =>
          allowedTiers.includes(t) &&
          platform.pools.some(p => poolTier(p) === t),
      );
      throw new GpuDomainError(
        'UNKNOWN_TIER',
        `No pool offers the ${tier} tier; allowed in "${environmentName}": ${listAllowed(
          allowed,
        )}`,
        { allowed },
      );
    }
  }
}

/** One error for structural problems; the code follows the first bad field. */
function structuralError(
  platform: Platform,
  issues: z.core.$ZodIssue[],
): GpuDomainError {
  const message = issues
    .map(issue => {
      const path =
        issue.code === 'unrecognized_keys'
          ? issue.keys.join(', ')
          : formatConfigPath(issue.path);
      return `${path || 'request'}: ${issue.message}`;
    })
    .join('; ');
  const first = issues[0];
  const field =
    first.code === 'unrecognized_keys' ? '' : String(first.path[0] ?? '');
  const [code, allowed] = codeForField(platform, field);
  return new GpuDomainError(code, `Invalid service request: ${message}`, {
    allowed,
  });
}

function codeForField(
  platform: Platform,
  field: string,
): [GpuDomainErrorCode, string[] | undefined] {
  switch (field) {
    case 'name':
    case 'namespace':
      return ['INVALID_NAME', undefined];
    case 'team':
      return ['UNKNOWN_TEAM', platform.teams.map(t => t.name)];
    case 'model':
      return ['UNKNOWN_MODEL', Object.keys(platform.models)];
    case 'environment':
      return ['UNKNOWN_ENVIRONMENT', platform.environments.map(e => e.name)];
    case 'pool':
      return ['UNKNOWN_POOL', platform.pools.map(p => p.name)];
    case 'tier':
      return ['UNKNOWN_TIER', [...SHARING_TIERS]];
    case 'runtime':
      return ['OUT_OF_RANGE', [...RUNTIMES]];
    case 'dtype':
      return ['OUT_OF_RANGE', [...DTYPES]];
    case '':
      return ['OUT_OF_RANGE', Object.keys(serviceRequestSchema.shape)];
    default:
      return ['OUT_OF_RANGE', undefined];
  }
}
