import type { KubernetesObject } from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { goModuleDir } from './goModuleDir';

/**
 * The CRDs the renderer's objects need that the control plane's components do not bring, each from the module pinned
 * in cluster/crds/go.mod that defines it (read only for its manifests; no controller runs here, so the objects are
 * validated and stored by the API server but nothing acts on them).
 */
const PINNED_CRDS: Array<{ module: string; dir: string; files: string[] }> = [
  {
    // ScaledObject and what it refers to.
    module: 'github.com/kedacore/keda/v2',
    dir: 'config/crd/bases',
    files: [
      'keda.sh_scaledobjects.yaml',
      'keda.sh_scaledjobs.yaml',
      'keda.sh_triggerauthentications.yaml',
      'keda.sh_clustertriggerauthentications.yaml',
    ],
  },
  {
    // HTTPScaledObject: a service that scales to zero behind the add-on's interceptor.
    module: 'github.com/kedacore/http-add-on',
    dir: 'config/crd/bases',
    files: ['http.keda.sh_httpscaledobjects.yaml'],
  },
  {
    // NodePool (one per Karpenter-managed GPU pool) and the NodeClaims it owns.
    module: 'sigs.k8s.io/karpenter',
    dir: 'pkg/apis/crds',
    files: ['karpenter.sh_nodepools.yaml', 'karpenter.sh_nodeclaims.yaml'],
  },
  {
    // PrometheusRule (the DCGM and vLLM alerts), and the PodMonitor / ServiceMonitor that scrape vLLM.
    module: 'github.com/prometheus-operator/prometheus-operator',
    dir: 'example/prometheus-operator-crd',
    files: [
      'monitoring.coreos.com_prometheusrules.yaml',
      'monitoring.coreos.com_podmonitors.yaml',
      'monitoring.coreos.com_servicemonitors.yaml',
    ],
  },
];

/** Every CRD of {@link PINNED_CRDS}, parsed. */
export function pinnedCrds(): KubernetesObject[] {
  return PINNED_CRDS.flatMap(({ module, dir, files }) => {
    const root = join(goModuleDir(module, 'cluster/crds'), dir);
    return files.map(file => parse(readFileSync(join(root, file), 'utf8')));
  });
}
