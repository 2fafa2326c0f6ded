import {
  Platform,
  PlatformFinding,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { KubernetesObjectClient, KubernetesRequestError } from '../cluster';

/**
 * The namespaces a cluster must have: those of every team with quota (in `gpu.teams`) on one of the cluster's pools,
 * each with the pools that need it. `platform` is the cluster's part of the platform (its own pools).
 */
function neededNamespaces(platform: Platform): Map<string, string[]> {
  const pools = new Set(platform.pools.map(p => p.name));
  const needed = new Map<string, string[]>();
  for (const team of platform.teams) {
    const quotaHere = Object.entries(team.gpuQuota).some(
      ([pool, units]) => pools.has(pool) && units > 0,
    );
    if (!quotaHere) continue;
    for (const namespace of team.namespaces) {
      needed.set(namespace, [...(needed.get(namespace) ?? []), team.name]);
    }
  }
  return needed;
}

/**
 * `team-namespace-missing` for each namespace of a team with quota on the cluster's pools that the cluster does not
 * have: the team's LocalQueue and services could not be applied there. Read on the cluster when the checks run, not
 * at start-up, so that the backend starts whether or not a cluster answers. A read that fails otherwise than with 404
 * is thrown (the caller reports it as `cluster-read-failed`).
 */
export async function namespaceFindings(
  cluster: string,
  platform: Platform,
  client: KubernetesObjectClient,
): Promise<PlatformFinding[]> {
  const findings: PlatformFinding[] = [];
  for (const [namespace, teams] of neededNamespaces(platform)) {
    try {
      await client.read({
        apiVersion: 'v1',
        kind: 'Namespace',
        name: namespace,
      });
    } catch (error) {
      if (
        !(error instanceof KubernetesRequestError && error.statusCode === 404)
      ) {
        throw error;
      }
      findings.push({
        id: 'team-namespace-missing',
        severity: 'error',
        source: 'cluster',
        cluster,
        where: `Namespace ${namespace}`,
        message: `Cluster ${cluster} has no namespace ${namespace}, a namespace of team${
          teams.length > 1 ? 's' : ''
        } ${teams.join(
          ', ',
        )} with quota on its pools: their LocalQueue and services cannot be applied there`,
        fix: `Create namespace ${namespace} on cluster ${cluster}, or remove the quota of ${teams.join(
          ', ',
        )} on that cluster's pools (gpu.teams[].gpuQuota)`,
      });
    }
  }
  return findings;
}
