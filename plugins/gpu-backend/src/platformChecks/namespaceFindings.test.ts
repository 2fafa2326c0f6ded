import {
  demoPlatformConfig,
  parsePlatform,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { KubernetesObjectClient, KubernetesRequestError } from '../cluster';
import { namespaceFindings } from './namespaceFindings';

/** The demo platform's part on one cluster: its pools named, every team as configured. */
function onPools(pools: string[]) {
  const platform = parsePlatform(demoPlatformConfig);
  return {
    ...platform,
    pools: platform.pools.filter(p => pools.includes(p.name)),
  };
}

/** A client that has the namespaces named; any other read is a 404, or `fail` when given. */
function clientOf(namespaces: string[], fail?: Error) {
  const reads: string[] = [];
  const client: KubernetesObjectClient = {
    apply: () => Promise.reject(new Error('not used')),
    delete: () => Promise.reject(new Error('not used')),
    list: () => Promise.reject(new Error('not used')),
    serves: async () => true,
    read: async ref => {
      reads.push(`${ref.kind} ${ref.name}`);
      if (fail) throw fail;
      if (!namespaces.includes(ref.name)) {
        throw new KubernetesRequestError('not found', 'http', 404);
      }
      return {
        apiVersion: ref.apiVersion,
        kind: ref.kind,
        metadata: { name: ref.name },
      };
    },
  };
  return { client, reads };
}

describe('namespaceFindings', () => {
  it('names each namespace missing on the cluster of a team with quota on its pools, and reads only those teams’ namespaces', async () => {
    // spot-l4: only search has quota there (ml-platform has none).
    const { client, reads } = clientOf(['search']);
    const findings = await namespaceFindings(
      'dev',
      onPools(['spot-l4']),
      client,
    );
    expect(reads.sort()).toEqual(['Namespace batch', 'Namespace search']);
    expect(findings).toEqual([
      {
        id: 'team-namespace-missing',
        severity: 'error',
        source: 'cluster',
        cluster: 'dev',
        where: 'Namespace batch',
        message:
          'Cluster dev has no namespace batch, a namespace of team search with quota on its pools: their LocalQueue and services cannot be applied there',
        fix: "Create namespace batch on cluster dev, or remove the quota of search on that cluster's pools (gpu.teams[].gpuQuota)",
      },
    ]);
  });

  it('finds nothing when every namespace exists, and reads nothing for a cluster where no team has quota', async () => {
    const all = ['ml-platform', 'ml-serving', 'search', 'batch'];
    expect(
      await namespaceFindings(
        'prod',
        onPools(['l4-ondemand']),
        clientOf(all).client,
      ),
    ).toEqual([]);
    const none = clientOf([]);
    expect(await namespaceFindings('empty', onPools([]), none.client)).toEqual(
      [],
    );
    expect(none.reads).toEqual([]);
  });

  it('throws a read the cluster refuses (the live check reports it as cluster-read-failed)', async () => {
    const denied = new KubernetesRequestError('forbidden', 'http', 403);
    await expect(
      namespaceFindings(
        'dev',
        onPools(['spot-l4']),
        clientOf([], denied).client,
      ),
    ).rejects.toBe(denied);
  });
});
