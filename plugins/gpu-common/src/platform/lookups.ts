import { GpuDomainError, listAllowed } from '../errors';
import {
  EnvironmentPolicy,
  GpuModel,
  ModelSpec,
  Platform,
  Pool,
  TeamQuota,
} from './types';

function unknown(
  code:
    | 'UNKNOWN_MODEL'
    | 'UNKNOWN_POOL'
    | 'UNKNOWN_TEAM'
    | 'UNKNOWN_ENVIRONMENT',
  what: string,
  name: string,
  allowed: string[],
): GpuDomainError {
  return new GpuDomainError(
    code,
    `Unknown ${what} "${name}"; allowed: ${listAllowed(allowed)}`,
    { allowed },
  );
}

/**
 * The pool named `name`.
 *
 * @throws GpuDomainError `UNKNOWN_POOL` listing the pools.
 * @public
 */
export function findPool(platform: Platform, name: string): Pool {
  const pool = platform.pools.find(p => p.name === name);
  if (!pool) {
    throw unknown(
      'UNKNOWN_POOL',
      'pool',
      name,
      platform.pools.map(p => p.name),
    );
  }
  return pool;
}

/**
 * The catalogue model named `name`.
 *
 * @throws GpuDomainError `UNKNOWN_MODEL` listing the models.
 * @public
 */
export function findModel(platform: Platform, name: string): ModelSpec {
  const model = Object.hasOwn(platform.models, name)
    ? platform.models[name]
    : undefined;
  if (!model) {
    throw unknown('UNKNOWN_MODEL', 'model', name, Object.keys(platform.models));
  }
  return model;
}

/**
 * The GPU model named `name`.
 *
 * @throws GpuDomainError `UNKNOWN_MODEL` listing the GPU models.
 * @public
 */
export function findGpuModel(platform: Platform, name: string): GpuModel {
  const gpu = Object.hasOwn(platform.gpuModels, name)
    ? platform.gpuModels[name]
    : undefined;
  if (!gpu) {
    throw unknown(
      'UNKNOWN_MODEL',
      'GPU model',
      name,
      Object.keys(platform.gpuModels),
    );
  }
  return gpu;
}

/**
 * The team named `name`.
 *
 * @throws GpuDomainError `UNKNOWN_TEAM` listing the teams.
 * @public
 */
export function findTeam(platform: Platform, name: string): TeamQuota {
  const team = platform.teams.find(t => t.name === name);
  if (!team) {
    throw unknown(
      'UNKNOWN_TEAM',
      'team',
      name,
      platform.teams.map(t => t.name),
    );
  }
  return team;
}

/**
 * The environment named `name`.
 *
 * @throws GpuDomainError `UNKNOWN_ENVIRONMENT` listing the environments.
 * @public
 */
export function findEnvironment(
  platform: Platform,
  name: string,
): EnvironmentPolicy {
  const environment = platform.environments.find(e => e.name === name);
  if (!environment) {
    throw unknown(
      'UNKNOWN_ENVIRONMENT',
      'environment',
      name,
      platform.environments.map(e => e.name),
    );
  }
  return environment;
}

/**
 * The namespace a team's workload goes to: `requested`, or the team's first namespace when omitted. `verb` says what
 * the workload does there in the error (`deploy to`, `run jobs in`).
 *
 * @throws GpuDomainError `INVALID_NAME` when the team may not use the namespace, listing the allowed ones.
 * @public
 */
export function teamNamespace(
  team: TeamQuota,
  requested: string | undefined,
  verb: string,
): string {
  const namespace = requested ?? team.namespaces[0];
  if (!team.namespaces.includes(namespace)) {
    throw new GpuDomainError(
      'INVALID_NAME',
      `Team "${
        team.name
      }" may not ${verb} namespace "${namespace}"; allowed: ${listAllowed(
        team.namespaces,
      )}`,
      { allowed: team.namespaces },
    );
  }
  return namespace;
}
