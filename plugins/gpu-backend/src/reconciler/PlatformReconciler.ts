import type { LoggerService } from '@backstage/backend-plugin-api';
import {
  ClusterDriftReport,
  Platform,
  PlatformObjectDrift,
  PlatformOperations,
  PlatformPart,
  TeamAllowance,
  UndeliveredObject,
} from '@gpu-platform/backstage-plugin-gpu-common';
import type { KubernetesObject } from '@kubernetes/client-node';
import { ClusterApplier, ClusterTarget, DriftReport } from '../cluster';
import { describeRef, refOf } from '../cluster/objectRef';
import {
  renderMultiKueueManagerPlatform,
  workerKubeconfig,
} from '../batch/multiKueue';
import { GpuStore } from '../database';
import { deliverableObjects } from './deliverableObjects';
import {
  NodeConfigLabelPlan,
  nodeConfigLabelPlans,
} from './nodeConfigLabelPlans';
import { nodeLabelObjects } from './nodeLabelObjects';
import { platformPartOf } from './platformParts';
import { platformOnCluster } from './platformOnCluster';
import { renderPlatformObjects } from './renderPlatformObjects';

/** A configured cluster and, in apply mode, its applier. */
export interface ReconciledCluster {
  target: ClusterTarget & { name: string };
  applier?: ClusterApplier;
}

/** Options of {@link PlatformReconciler}. */
export interface PlatformReconcilerOptions {
  platform: Platform;
  /** Karpenter and alert settings (`readPlatformOperations`). */
  operations: PlatformOperations;
  /** The parts to deliver (`gpu.reconcile.deliver`). */
  deliver: PlatformPart[];
  store: GpuStore;
  clusters: ReconciledCluster[];
  logger: LoggerService;
}

/**
 * Keeps every `apply` cluster's platform objects (`renderPlatformObjects`: the GPU Operator ConfigMaps, the Kueue
 * objects with each team's stored quota, the Karpenter NodePools and alert PrometheusRules) and the config labels of
 * the nodes of pools Karpenter does not manage as the platform renders them, for the parts `deliver` lists: compares
 * them with the cluster (missing or changed objects are drift), server-side applies only what drifted, and stores a
 * report per cluster. What the cluster cannot take (a kind whose CRD is not installed, a namespace that does not
 * exist) is reported per object and the rest still applies. Clusters in `gitops` or `dry-run` mode are never
 * contacted; their report says so.
 */
export class PlatformReconciler {
  constructor(private readonly options: PlatformReconcilerOptions) {}

  /** One pass over every cluster; a failing cluster is reported and does not stop the others. */
  async reconcile(): Promise<ClusterDriftReport[]> {
    const { platform, operations, deliver, store, clusters } = this.options;
    const parts = new Set(deliver);
    const allowances = await store.listAllowances();
    const reports: ClusterDriftReport[] = [];
    for (const cluster of clusters) {
      // Each cluster gets its own pools' objects, and Kueue queues for the teams with quota there.
      const here = platformOnCluster(
        platform,
        allowances,
        operations,
        cluster.target.name,
      );
      // A cluster with no pool of its own has no GPU nodes: no device-plugin configs, queues, NodePools or alerts.
      const objects = [
        ...(here.platform.pools.length > 0
          ? renderPlatformObjects(
              here.platform,
              here.allowances,
              here.operations,
            )
          : []),
        ...this.multiKueueManagerObjects(cluster, allowances),
      ].filter(object => parts.has(platformPartOf(object)));
      const plans = parts.has('nodeLabels')
        ? nodeConfigLabelPlans(here.platform, here.operations)
        : [];
      const report = await this.reconcileCluster(cluster, objects, plans);
      await store.putClusterDrift(report);
      reports.push(report);
    }
    return reports;
  }

  /**
   * On a MultiKueue manager, its workers' kubeconfig Secrets, MultiKueueClusters, MultiKueueConfig, AdmissionCheck
   * and every team's queue objects for its workers' batch pools; nothing on another cluster.
   */
  private multiKueueManagerObjects(
    cluster: ReconciledCluster,
    allowances: readonly TeamAllowance[],
  ): KubernetesObject[] {
    const workers = cluster.target.multiKueue?.workers;
    if (!workers || !cluster.applier) return [];
    const targets = new Map(
      this.options.clusters.map(c => [c.target.name, c.target]),
    );
    return renderMultiKueueManagerPlatform({
      platform: this.options.platform,
      allowances,
      manager: cluster.target,
      workers: workers.map(name => ({
        name,
        kubeconfig: workerKubeconfig(targets.get(name)!),
      })),
    });
  }

  private async reconcileCluster(
    { target, applier }: ReconciledCluster,
    rendered: KubernetesObject[],
    plans: NodeConfigLabelPlan[],
  ): Promise<ClusterDriftReport> {
    const { logger, deliver } = this.options;
    const base = {
      cluster: target.name,
      mode: target.mode,
      checkedAt: new Date().toISOString(),
      parts: [...deliver],
    };
    if (!applier) {
      return {
        ...base,
        objects: rendered.length,
        checked: false,
        applied: false,
        drifted: [],
        message: `Not checked: cluster ${target.name} is in ${target.mode} mode; Backstage does not read or apply it`,
      };
    }
    let objects: KubernetesObject[];
    let undelivered: UndeliveredObject[];
    let drift: DriftReport;
    try {
      const platformObjects = await deliverableObjects(applier, rendered);
      const nodeLabels = await nodeLabelObjects(applier, plans);
      objects = [...platformObjects.deliverable, ...nodeLabels.objects];
      undelivered = [...platformObjects.undelivered, ...nodeLabels.undelivered];
      drift = await applier.diff(objects);
    } catch (error) {
      logger.warn('Platform drift check failed', {
        cluster: target.name,
        error: String(error),
      });
      return {
        ...base,
        objects: rendered.length,
        checked: false,
        applied: false,
        drifted: [],
        message: `Comparing failed: ${(error as Error).message}`,
      };
    }
    const checked = {
      ...base,
      objects: objects.length,
      checked: true,
      inSync: drift.inSync,
      drifted: drift.drifted.map(toDriftView),
      ...(undelivered.length > 0 ? { undelivered } : {}),
    };
    if (undelivered.length > 0) {
      logger.warn('Platform objects the cluster cannot take', {
        cluster: target.name,
        undelivered: undelivered
          .map(u => `${describeRef(u)}: ${u.reason}`)
          .join(', '),
      });
    }
    if (checked.drifted.length > 0) {
      logger.warn('Platform objects drifted; applying the rendered ones', {
        cluster: target.name,
        drifted: checked.drifted
          .map(d => `${d.kind}/${d.name} ${d.state}`)
          .join(', '),
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
        ...checked,
        applied: false,
        message: `Applying failed: ${(error as Error).message}`,
      };
    }
    return { ...checked, applied: true };
  }
}

function toDriftView(
  drift: DriftReport['drifted'][number],
): PlatformObjectDrift {
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
