import {
  PlatformManifestFile,
  PlatformManifestPart,
  PlatformManifestsResponse,
  PlatformOperations,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { toYaml } from '@gpu-platform/backstage-plugin-gpu-node';
import type { KubernetesObject } from '@kubernetes/client-node';
import { stringify } from 'yaml';

/** The directory of each API group the platform renders objects of (`v1` is the GPU Operator's ConfigMaps). */
const PART_OF_GROUP: Record<string, PlatformManifestPart> = {
  '': 'gpu-operator',
  'kueue.x-k8s.io': 'kueue',
  'karpenter.sh': 'karpenter',
  'monitoring.coreos.com': 'monitoring',
};

function partOf(object: KubernetesObject): PlatformManifestPart {
  const apiVersion = object.apiVersion ?? '';
  const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
  const part = PART_OF_GROUP[group];
  if (!part) {
    throw new Error(
      `No GitOps directory for ${object.kind} of ${apiVersion}; platform objects are ConfigMaps, Kueue, Karpenter and Prometheus Operator objects`,
    );
  }
  return part;
}

/** `kueue/localqueue-ml-platform-gpu.yaml`: kind, namespace (for namespaced objects) and name, lower case. */
function pathOf(object: KubernetesObject): string {
  const name = [object.kind, object.metadata?.namespace, object.metadata?.name]
    .filter(Boolean)
    .join('-')
    .toLocaleLowerCase('en-US');
  return `${partOf(object)}/${name}.yaml`;
}

/**
 * The platform objects as files of a GitOps repository directory: one file per object under the directory of its
 * part, in the objects' (apply) order, then a `kustomization.yaml` listing them in that order; and the parts the
 * operations settings leave out, with why.
 */
export function platformManifestFiles(
  objects: readonly KubernetesObject[],
  operations: PlatformOperations,
): Pick<PlatformManifestsResponse, 'files' | 'absent'> {
  const files: PlatformManifestFile[] = objects.map(object => ({
    path: pathOf(object),
    content: toYaml([object]),
  }));
  const paths = new Set(files.map(f => f.path));
  if (paths.size !== files.length) {
    throw new Error('Two platform objects map to the same file');
  }
  files.push({
    path: 'kustomization.yaml',
    content: stringify({
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      resources: files.map(f => f.path),
    }),
  });
  const absent: PlatformManifestsResponse['absent'] = [];
  if (operations.nodePools.length === 0) {
    absent.push({
      part: 'karpenter',
      reason:
        'No pool is managed by Karpenter (gpu.karpenter.enabled is false, or every pool sets karpenter.managed: false), so no NodePool is rendered',
    });
  }
  if (!operations.alerts) {
    absent.push({
      part: 'monitoring',
      reason:
        'Alerts are disabled (gpu.alerts.enabled: false), so no PrometheusRule is rendered',
    });
  }
  return { files, absent };
}
