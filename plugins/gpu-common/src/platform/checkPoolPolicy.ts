import { PlatformFinding } from '../api/platformChecks';
import { poolTier } from '../tiers/poolTier';
import { formatConfigPath } from './configIssues';
import { EnvironmentPolicy, Platform, Pool } from './types';

/**
 * The environment whose services must not share nodes with the others nor run on spot capacity (also the one the
 * usage recommendations and zero-downtime rollouts treat as production).
 *
 * @public
 */
export const PRODUCTION_ENVIRONMENT = 'production';

/** The extended resource name of NVIDIA's device plugin, which a GPU node's taint conventionally carries. */
const GPU_TAINT_KEY = 'nvidia.com/gpu';

/**
 * Whether a taint keeps pods without a toleration off a node: `NoSchedule` (and `NoExecute`, which also evicts).
 *
 * @public
 */
export function repelsUntolerated(taint: { effect?: string }): boolean {
  return taint.effect === 'NoSchedule' || taint.effect === 'NoExecute';
}

function environmentsAllowing(
  platform: Platform,
  pool: Pool,
): EnvironmentPolicy[] {
  const tier = poolTier(pool);
  return platform.environments.filter(e => e.allowedTiers.includes(tier));
}

/**
 * The pool mistakes of the platform config, one finding per pool and mistake:
 *
 * - `gpu-nodes-untainted`: a pool without a `NoSchedule` (or `NoExecute`) taint, so any pod can land on its
 *   expensive nodes;
 * - `pool-shared-dev-production`: a pool whose tier both the production environment and another one allow, so dev
 *   experiments and production compete for (and evict each other from) the same nodes;
 * - `production-on-spot`: a spot pool whose tier production allows, so production can be placed on capacity the
 *   cloud takes back at two minutes' notice.
 *
 * @public
 */
export function checkPoolPolicy(platform: Platform): PlatformFinding[] {
  const findings: PlatformFinding[] = [];
  platform.pools.forEach((pool, index) => {
    const path = ['gpu', 'pools', index];
    if (!pool.nodeTaints.some(repelsUntolerated)) {
      findings.push({
        id: 'gpu-nodes-untainted',
        severity: 'warning',
        source: 'config',
        where: formatConfigPath([...path, 'nodeTaints']),
        message: `GPU pool ${pool.name} has no NoSchedule taint: any pod without a GPU request (log shippers, batch CPU jobs) can be scheduled on its ${pool.gpuModel} nodes and hold them, so GPU nodes stay up, and are paid for, for CPU work`,
        fix: `Add a taint to the pool's nodes and to gpu.pools[${index}].nodeTaints, e.g. { key: ${GPU_TAINT_KEY}, value: present, effect: NoSchedule }; the platform renders the matching toleration on every GPU service`,
      });
    }
    const allowing = environmentsAllowing(platform, pool);
    const production = allowing.some(e => e.name === PRODUCTION_ENVIRONMENT);
    const others = allowing
      .filter(e => e.name !== PRODUCTION_ENVIRONMENT)
      .map(e => e.name);
    if (production && others.length > 0) {
      findings.push({
        id: 'pool-shared-dev-production',
        severity: 'warning',
        source: 'config',
        where: formatConfigPath(path),
        message: `Pool ${pool.name} (${poolTier(
          pool,
        )}) serves ${PRODUCTION_ENVIRONMENT} and ${others.join(
          ', ',
        )}: the tier policy allows its tier in each, so experiments compete with production for the same nodes and a noisy dev service can starve or preempt a production one`,
        fix: `Give ${PRODUCTION_ENVIRONMENT} pools of its own: remove the ${poolTier(
          pool,
        )} tier from gpu.environments allowedTiers of ${others.join(
          ', ',
        )} or of ${PRODUCTION_ENVIRONMENT}, so that each pool's tier is allowed on one side only`,
      });
    }
    if (pool.capacityType === 'spot' && production) {
      findings.push({
        id: 'production-on-spot',
        severity: 'error',
        source: 'config',
        where: formatConfigPath([...path, 'capacityType']),
        message: `Spot pool ${
          pool.name
        } can take ${PRODUCTION_ENVIRONMENT} services: its ${poolTier(
          pool,
        )} tier is allowed in ${PRODUCTION_ENVIRONMENT}, and spot nodes are reclaimed at two minutes' notice, taking the model (and minutes of weight loading) with them`,
        fix: `Keep ${PRODUCTION_ENVIRONMENT} on on-demand capacity: make ${
          pool.name
        } a tier ${PRODUCTION_ENVIRONMENT} does not allow, or drop ${poolTier(
          pool,
        )} from the ${PRODUCTION_ENVIRONMENT} environment's allowedTiers and serve it from an on-demand pool`,
      });
    }
  });
  return findings;
}
