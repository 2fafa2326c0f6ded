import { PlatformPart } from '@gpu-platform/backstage-plugin-gpu-common';
import type { KubernetesObject } from '@kubernetes/client-node';

/** The API group of an apiVersion: `''` for the core group (`v1`). */
export function apiGroup(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

const PART_OF_GROUP: Record<string, PlatformPart> = {
  'kueue.x-k8s.io': 'kueue',
  'karpenter.sh': 'nodePools',
  'monitoring.coreos.com': 'alerts',
};

/** The part of the platform a rendered platform object belongs to (the core group's ConfigMaps are the GPU Operator's). */
export function platformPartOf(object: KubernetesObject): PlatformPart {
  const apiVersion = object.apiVersion ?? '';
  const group = apiGroup(apiVersion);
  if (group === '' && object.kind === 'ConfigMap') {
    return 'gpuOperator';
  }
  // A MultiKueue manager's kubeconfig Secrets of its workers, which its MultiKueueClusters read.
  if (group === '' && object.kind === 'Secret') {
    return 'kueue';
  }
  const part = PART_OF_GROUP[group];
  if (!part) {
    throw new Error(
      `No platform part delivers ${apiVersion} ${object.kind} ${object.metadata?.name}`,
    );
  }
  return part;
}

/** What to install for a kind the cluster does not serve, by API group. */
export const CRD_INSTALL_HINTS: Record<string, string> = {
  'kueue.x-k8s.io':
    'install Kueue (its CRDs), or leave kueue out of gpu.reconcile.deliver',
  'karpenter.sh':
    "install Karpenter's CRDs (NodePool, karpenter.sh/v1), or set gpu.karpenter.enabled: false, or leave nodePools out of gpu.reconcile.deliver",
  'monitoring.coreos.com':
    "install the Prometheus operator's CRDs (PrometheusRule, monitoring.coreos.com/v1), or set gpu.alerts.enabled: false, or leave alerts out of gpu.reconcile.deliver",
};

/** What to do about a namespace that does not exist, by the part of the object that needs it. */
export function namespaceHint(part: PlatformPart, namespace: string): string {
  switch (part) {
    case 'gpuOperator':
      return `install the NVIDIA GPU Operator in namespace ${namespace} (its ClusterPolicy reads these ConfigMaps), or leave gpuOperator out of gpu.reconcile.deliver`;
    case 'alerts':
      return `create namespace ${namespace}, or set gpu.alerts.namespace to the namespace your Prometheus reads rules from`;
    default:
      return `create namespace ${namespace} (teams own their namespaces)`;
  }
}
