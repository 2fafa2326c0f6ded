import type { LoggerService } from '@backstage/backend-plugin-api';
import {
  ClusterDriftReport,
  KueueObjectDrift,
  Platform,
} from '@internal/backstage-plugin-gpu-common';
import { ClusterApplier, ClusterTarget, DriftReport } from '../cluster';
import { describeRef, refOf } from '../cluster/objectRef';
import { GpuStore } from '../database';
import { renderKueueObjects } from './renderKueueObjects';

/** A configured cluster and, in apply mode, its applier. */
export interface ReconciledCluster {
  target: ClusterTarget & { name: string };
  applier?: ClusterApplier;
}

/**
 * Keeps the Kueue objects of every `apply` cluster as the platform config and the quota table render them: compares
 * them with the cluster (missing or changed objects are drift), server-side applies them, and stores a report per
 * cluster. Clusters in `gitops` or `dry-run` mode are never contacted; their report says so.
 */
export class KueueReconciler {
  constructor(
    private readonly options: {
      platform: Platform;
      store: GpuStore;
      clusters: ReconciledCluster[];
      logger: LoggerService;
    },
  ) {}

  /** One pass over every cluster; a failing cluster is reported and does not stop the others. */
  async reconcile(): Promise<ClusterDriftReport[]> {
    const { platform, store, clusters } = this.options;
    const objects = renderKueueObjects(platform, await store.listAllowances());
    const reports: ClusterDriftReport[] = [];
    for (const cluster of clusters) {
      const report = await this.reconcileCluster(cluster, objects);
      await store.putClusterDrift(report);
      reports.push(report);
    }
    return reports;
  }

  private async reconcileCluster(
    { target, applier }: ReconciledCluster,
    objects: ReturnType<typeof renderKueueObjects>,
  ): Promise<ClusterDriftReport> {
    const { logger } = this.options;
    const base = {
      cluster: target.name,
      mode: target.mode,
      checkedAt: new Date().toISOString(),
      objects: objects.length,
    };
    if (!applier) {
      return {
        ...base,
        checked: false,
        applied: false,
        drifted: [],
        message: `Not checked: cluster ${target.name} is in ${target.mode} mode; Backstage does not read or apply it`,
      };
    }
    let drift: DriftReport;
    try {
      drift = await applier.diff(objects);
    } catch (error) {
      logger.warn('Kueue drift check failed', {
        cluster: target.name,
        error: String(error),
      });
      return {
        ...base,
        checked: false,
        applied: false,
        drifted: [],
        message: `Comparing failed: ${(error as Error).message}`,
      };
    }
    const drifted = drift.drifted.map(toDriftView);
    if (drifted.length > 0) {
      logger.warn('Kueue objects drifted; applying the rendered ones', {
        cluster: target.name,
        drifted: drifted.map(d => `${d.kind}/${d.name} ${d.state}`).join(', '),
      });
    }
    // Only what drifted is applied: a pass over a cluster in sync sends no mutating request.
    const toRepair = new Set(drift.drifted.map(d => describeRef(d.ref)));
    try {
      await applier.apply(
        objects.filter(object => toRepair.has(describeRef(refOf(object)))),
      );
    } catch (error) {
      return {
        ...base,
        checked: true,
        applied: false,
        inSync: drift.inSync,
        drifted,
        message: `Applying failed: ${(error as Error).message}`,
      };
    }
    return {
      ...base,
      checked: true,
      applied: true,
      inSync: drift.inSync,
      drifted,
    };
  }
}

function toDriftView(drift: DriftReport['drifted'][number]): KueueObjectDrift {
  const { ref } = drift;
  return {
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    ...(ref.namespace ? { namespace: ref.namespace } : {}),
    name: ref.name,
    state: drift.state,
    ...(drift.state === 'changed' ? { fields: drift.fields } : {}),
  };
}
