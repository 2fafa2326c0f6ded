import {
  Platform,
  PlatformFinding,
  PRODUCTION_ENVIRONMENT,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { serviceObjectNames } from '@gpu-platform/backstage-plugin-gpu-node';
import { ServiceRecord } from '../database';

/**
 * The placement mistakes of the services running on one cluster, from the store:
 *
 * - `pool-shared-dev-production`: a pool running production services and services of another environment;
 * - `production-on-spot`: a production service on a spot pool.
 */
export function placementFindings(
  cluster: string,
  platform: Platform,
  running: ServiceRecord[],
): PlatformFinding[] {
  const findings: PlatformFinding[] = [];
  for (const pool of platform.pools) {
    const onPool = running.filter(s => s.pool === pool.name);
    const production = onPool.filter(
      s => s.environment === PRODUCTION_ENVIRONMENT,
    );
    const others = [
      ...new Set(
        onPool
          .filter(s => s.environment !== PRODUCTION_ENVIRONMENT)
          .map(s => s.environment),
      ),
    ].sort();
    if (production.length > 0 && others.length > 0) {
      findings.push({
        id: 'pool-shared-dev-production',
        severity: 'warning',
        source: 'cluster',
        cluster,
        where: `ResourceFlavor ${pool.name}`,
        message: `Pool ${pool.name} runs ${
          production.length
        } ${PRODUCTION_ENVIRONMENT} service${
          production.length > 1 ? 's' : ''
        } beside ${others.join(
          ', ',
        )} services: they compete for the same nodes, and a dev service can take the capacity a production one needs to scale or reschedule`,
        fix: `Move the ${others.join(
          ', ',
        )} services to pools of their own (and restrict the tier policy so that ${PRODUCTION_ENVIRONMENT} and the other environments allow different pools)`,
      });
    }
    if (pool.capacityType === 'spot') {
      for (const service of production) {
        const deployment = serviceObjectNames(service.name).deployment;
        findings.push({
          id: 'production-on-spot',
          severity: 'error',
          source: 'cluster',
          cluster,
          where: `Deployment ${service.namespace}/${deployment}`,
          message: `${PRODUCTION_ENVIRONMENT} service ${service.team}/${service.name} runs on spot pool ${pool.name}: a reclaimed node takes its replicas down with two minutes' notice, and reloading the model takes minutes more`,
          fix: `Move it to an on-demand pool (change its pool with PATCH /services/${service.id}) and keep spot pools out of the ${PRODUCTION_ENVIRONMENT} tier policy`,
        });
      }
    }
  }
  return findings;
}
