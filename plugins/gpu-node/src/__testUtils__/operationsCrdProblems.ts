import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Ajv, { ValidateFunction } from 'ajv';
import { parse } from 'yaml';
import type { KubernetesObject } from '@kubernetes/client-node';

/**
 * Test-only: the `openAPIV3Schema` checks (unknown fields rejected) of the Karpenter, Prometheus operator and KEDA HTTP
 * add-on CRDs, read from the modules pinned in the repository's `cluster/crds/go.mod` (the same CRDs the local control
 * plane installs). Their CEL rules are left to the cluster suites, which apply the objects to a real API server.
 */
const CRDS: Record<string, { module: string; file: string }> = {
  'karpenter.sh/NodePool': {
    module: 'sigs.k8s.io/karpenter',
    file: 'pkg/apis/crds/karpenter.sh_nodepools.yaml',
  },
  'monitoring.coreos.com/PrometheusRule': {
    module: 'github.com/prometheus-operator/prometheus-operator',
    file: 'example/prometheus-operator-crd/monitoring.coreos.com_prometheusrules.yaml',
  },
  'monitoring.coreos.com/PodMonitor': {
    module: 'github.com/prometheus-operator/prometheus-operator',
    file: 'example/prometheus-operator-crd/monitoring.coreos.com_podmonitors.yaml',
  },
  'http.keda.sh/HTTPScaledObject': {
    module: 'github.com/kedacore/http-add-on',
    file: 'config/crd/bases/http.keda.sh_httpscaledobjects.yaml',
  },
};

/** Whether {@link operationsCrdProblems} validates this object's group. */
export function isOperationsObject(object: KubernetesObject): boolean {
  const group = object.apiVersion?.split('/')[0] ?? '';
  return (
    group === 'karpenter.sh' ||
    group === 'monitoring.coreos.com' ||
    group === 'http.keda.sh'
  );
}

function moduleDir(module: string): string {
  const cwd = path.resolve(__dirname, '../../../..', 'cluster/crds');
  const result = spawnSync('go', ['mod', 'download', '-json', module], {
    cwd,
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    throw new Error(
      `Could not locate ${module} pinned in ${cwd}/go.mod (needs Go and the Go module proxy): ${result.stderr}${result.stdout}`,
    );
  }
  return (JSON.parse(result.stdout) as { Dir: string }).Dir;
}

type Schema = Record<string, unknown>;

function compiles(pattern: unknown): boolean {
  try {
    return typeof pattern === 'string' && new RegExp(pattern, 'u') !== null;
  } catch {
    return false;
  }
}

/** Rejects unknown fields wherever the schema lists properties and does not preserve unknown fields. */
function strict(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strict);
  if (schema === null || typeof schema !== 'object') return schema;
  const copy: Schema = {};
  for (const [key, value] of Object.entries(schema as Schema)) {
    // Go regular expressions JavaScript cannot compile (e.g. `(?i)` flags) are left to the API server.
    if (key === 'pattern' && !compiles(value)) continue;
    copy[key] =
      key === 'properties'
        ? Object.fromEntries(
            Object.entries(value as Schema).map(([n, s]) => [n, strict(s)]),
          )
        : strict(value);
  }
  if (
    copy.properties &&
    copy.additionalProperties === undefined &&
    !copy['x-kubernetes-preserve-unknown-fields']
  ) {
    copy.additionalProperties = false;
  }
  return copy;
}

const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
const validators = new Map<string, ValidateFunction | undefined>();

function validator(object: KubernetesObject): ValidateFunction | undefined {
  const [group, version] = (object.apiVersion ?? '').split('/');
  const key = `${group}/${object.kind}/${version}`;
  if (!validators.has(key)) {
    const crd = CRDS[`${group}/${object.kind}`];
    const served = crd
      ? parse(
          fs.readFileSync(path.join(moduleDir(crd.module), crd.file), 'utf8'),
        ).spec.versions.find((v: { name: string }) => v.name === version)
      : undefined;
    validators.set(
      key,
      served
        ? ajv.compile(strict(served.schema.openAPIV3Schema) as Schema)
        : undefined,
    );
  }
  return validators.get(key);
}

/** The CRD schema problems of a NodePool, PrometheusRule, PodMonitor or HTTPScaledObject (empty when valid). */
export function operationsCrdProblems(object: KubernetesObject): string[] {
  const validate = validator(object);
  if (!validate) {
    return [`no CRD schema for ${object.apiVersion} ${object.kind}`];
  }
  return validate(object)
    ? []
    : (validate.errors ?? []).map(
        e =>
          `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`,
      );
}
