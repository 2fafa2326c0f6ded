import type { KubernetesObject } from '@kubernetes/client-node';
import {
  Platform,
  TeamAllowance,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { renderTeamManifests } from '@gpu-platform/backstage-plugin-gpu-node';
import { GpuStore } from '../database';
import { renderTeamQueueDependencies } from '../reconciler/renderKueueObjects';

/**
 * What a cluster needs before it can take the team's Job in `namespace`: the team's queue dependencies there
 * (ResourceFlavors, ClusterQueue, priority classes) and its LocalQueue in that namespace. `platform` and
 * `allowances` are the cluster's part of them (`platformOnCluster`).
 */
export function teamQueueObjectsFor(
  platform: Platform,
  allowances: readonly TeamAllowance[],
  team: string,
  namespace: string,
): KubernetesObject[] {
  return [
    ...renderTeamQueueDependencies(platform, [...allowances], team),
    ...renderTeamManifests(platform, team).filter(
      o => o.metadata?.namespace === namespace,
    ),
  ];
}

/**
 * Runs `apply`; when it fails, nothing runs, so the batch job's reservation is given back as of when it was taken
 * (`rolledBack`), then the error is thrown again.
 */
export async function applyOrReleaseBatchJob(
  store: Pick<GpuStore, 'releaseBatchJob'>,
  job: { id: string; actor: string },
  apply: () => Promise<unknown>,
): Promise<void> {
  try {
    await apply();
  } catch (error) {
    await store.releaseBatchJob({
      id: job.id,
      reason: `apply failed: ${(error as Error)?.message ?? error}`.slice(
        0,
        1000,
      ),
      actor: job.actor,
      rolledBack: true,
    });
    throw error;
  }
}
