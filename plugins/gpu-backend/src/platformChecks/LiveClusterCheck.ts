import type {
  KubernetesObject,
  V1Deployment,
  V1Node,
  V2HorizontalPodAutoscaler,
} from '@kubernetes/client-node';
import {
  Platform,
  PlatformFinding,
  ServiceDefaults,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { KubernetesObjectClient, KubernetesRequestError } from '../cluster';
import { ServiceRecord } from '../database';
import { autoscalerFindings, ScaledObject } from './autoscalerFindings';
import {
  autoscalingComponentFindings,
  autoscalingNeeds,
} from './autoscalingComponentFindings';
import { draFindings } from './draFindings';
import { gpuNodeFindings } from './gpuNodeFindings';
import { listEvery } from './listEvery';
import { namespaceFindings } from './namespaceFindings';
import { NodePool, nodePoolFindings } from './nodePoolFindings';
import { placementFindings } from './placementFindings';

/** What the check lists, and which ones only some clusters have (their CRD installed). */
const KINDS = {
  nodes: { apiVersion: 'v1', kind: 'Node', resource: 'nodes' },
  deployments: {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    resource: 'deployments.apps',
  },
  autoscalers: {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    resource: 'horizontalpodautoscalers.autoscaling',
  },
  scaledObjects: {
    apiVersion: 'keda.sh/v1alpha1',
    kind: 'ScaledObject',
    resource: 'scaledobjects.keda.sh',
    optional: true,
  },
  deviceClasses: {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'DeviceClass',
    resource: 'deviceclasses.resource.k8s.io',
  },
  nodePools: {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    resource: 'nodepools.karpenter.sh',
    optional: true,
  },
  apiServices: {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    resource: 'apiservices.apiregistration.k8s.io',
  },
  namespaces: {
    apiVersion: 'v1',
    kind: 'Namespace',
    resource: 'namespaces',
  },
} as const;

type Kind = (typeof KINDS)[keyof typeof KINDS];

/** Options of {@link LiveClusterCheck}. */
export interface LiveClusterCheckOptions {
  cluster: string;
  client: KubernetesObjectClient;
  platform: Platform;
  /** The service settings, for whether services scale to zero through KEDA's HTTP add-on. */
  serviceDefaults?: ServiceDefaults;
  /** Items per list request; 250 when omitted. */
  pageSize?: number;
}

/**
 * The platform checks of one cluster Backstage applies to: its GPU Nodes, the autoscalers of its GPU Deployments
 * (HorizontalPodAutoscalers, and KEDA ScaledObjects when KEDA's CRD is installed), its Karpenter NodePools (when
 * Karpenter's is), where the store says its running services are placed, and, when pools use DRA, whether the
 * cluster serves `resource.k8s.io/v1` and has the NVIDIA DeviceClasses they claim from, and whether the autoscaling
 * components its services need run (KEDA and its metrics API, the HTTP add-on, an HPA metrics adapter), and whether it
 * has the namespaces of the teams with quota on its pools. Every list that fails becomes a
 * `cluster-read-failed` finding naming it; the checks that need it are skipped and the others still run.
 */
export class LiveClusterCheck {
  readonly cluster: string;
  private readonly client: KubernetesObjectClient;
  private readonly platform: Platform;
  private readonly serviceDefaults?: ServiceDefaults;
  private readonly pageSize: number;

  constructor(options: LiveClusterCheckOptions) {
    this.cluster = options.cluster;
    this.client = options.client;
    this.platform = options.platform;
    this.serviceDefaults = options.serviceDefaults;
    this.pageSize = options.pageSize ?? 250;
  }

  /** The findings of the cluster; `running` are the services the store has running on it. */
  async check(running: ServiceRecord[]): Promise<PlatformFinding[]> {
    const read = async <T extends KubernetesObject>(
      kind: Kind,
    ): Promise<T[] | PlatformFinding> => {
      try {
        // A kind of a CRD that is not installed (API discovery does not list it): nothing to check.
        if (
          'optional' in kind &&
          !(await this.client.serves(kind.apiVersion, kind.kind))
        ) {
          return [];
        }
        return (await listEvery(this.client, kind, this.pageSize)) as T[];
      } catch (error) {
        return this.readFailure(kind, error);
      }
    };
    const results = await Promise.all([
      read<V1Node>(KINDS.nodes),
      read<V1Deployment>(KINDS.deployments),
      read<V2HorizontalPodAutoscaler>(KINDS.autoscalers),
      read<ScaledObject>(KINDS.scaledObjects),
      read<NodePool>(KINDS.nodePools),
    ]);
    const dra = await draFindings(
      this.cluster,
      this.platform,
      this.client,
    ).catch(error => [this.readFailure(KINDS.deviceClasses, error)]);
    const autoscaling = await autoscalingComponentFindings(
      this.cluster,
      autoscalingNeeds(running, this.serviceDefaults),
      this.client,
    ).catch(error => [this.readFailure(KINDS.apiServices, error)]);
    const namespaces = await namespaceFindings(
      this.cluster,
      this.platform,
      this.client,
    ).catch(error => [this.readFailure(KINDS.namespaces, error, 'get')]);
    const listed = <T>(result: T[] | PlatformFinding) =>
      Array.isArray(result) ? result : undefined;
    const [nodes, deployments, autoscalers, scaledObjects, nodePools] = [
      listed(results[0]),
      listed(results[1]),
      listed(results[2]),
      listed(results[3]),
      listed(results[4]),
    ] as const;
    return [
      ...results.filter((r): r is PlatformFinding => !Array.isArray(r)),
      ...(nodes ? gpuNodeFindings(this.cluster, nodes) : []),
      ...(deployments && autoscalers && scaledObjects
        ? autoscalerFindings(this.cluster, {
            deployments,
            autoscalers,
            scaledObjects,
          })
        : []),
      ...(nodePools ? nodePoolFindings(this.cluster, nodePools) : []),
      ...placementFindings(this.cluster, this.platform, running),
      ...dra,
      ...autoscaling,
      ...namespaces,
    ];
  }

  private readFailure(
    kind: Kind,
    error: unknown,
    verb: 'list' | 'get' = 'list',
  ): PlatformFinding {
    const status =
      error instanceof KubernetesRequestError && error.statusCode
        ? `${error.statusCode} `
        : '';
    const reason = error instanceof Error ? error.message : String(error);
    const denied =
      error instanceof KubernetesRequestError &&
      (error.statusCode === 401 || error.statusCode === 403);
    return {
      id: 'cluster-read-failed',
      severity: 'error',
      source: 'cluster',
      cluster: this.cluster,
      where: `${kind.kind} (${verb})`,
      message: `Could not ${verb} ${kind.apiVersion} ${kind.kind} on cluster ${this.cluster}: ${status}${reason}; the checks that need them were skipped`,
      fix: denied
        ? `Grant Backstage's credentials for cluster ${this.cluster} ${
            verb === 'get' ? 'get' : 'get and list'
          } on ${kind.resource} (a ClusterRole bound to its ServiceAccount)`
        : `Check that cluster ${this.cluster} is reachable with the credentials of gpu.clusters, then ask again`,
    };
  }
}
