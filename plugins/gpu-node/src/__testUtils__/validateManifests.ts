import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Ajv, { ValidateFunction } from 'ajv';
import { parse } from 'yaml';
import type { KubernetesObject } from '@kubernetes/client-node';
import {
  isDns1123Label,
  isLabelKey,
  isLabelValue,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  isOperationsObject,
  operationsCrdProblems,
} from './operationsCrdProblems';

/**
 * Test-only: validates rendered objects the way a cluster would, and returns every problem found (empty when all are
 * valid), each prefixed with the object's kind and name.
 *
 * - All objects: name and namespace are DNS-1123 labels (<= 63), label keys and values are valid.
 * - Core kinds and KEDA: the kubernetes-models validators, plus unknown fields (strict field validation).
 * - Kueue kinds: the `openAPIV3Schema` of the object's version in the CRDs of the pinned Kueue module (with unknown fields
 *   rejected, as `kubectl apply --validate=strict` does), plus the CRDs' CEL rules and Kueue webhook rules the
 *   renderer could break (written out here, since ajv cannot run CEL or Go), e.g. a ResourceFlavor's taints unique by
 *   key and effect.
 *
 * - Karpenter NodePools, Prometheus operator PrometheusRules and PodMonitors, KEDA HTTP add-on HTTPScaledObjects: the
 *   CRD schemas of the modules pinned in `cluster/crds/go.mod` (`operationsCrdProblems`).
 *
 * `serverSideApply.cluster.test.ts` checks the same objects against a real API server with Kueue's webhooks; a class
 * of error found there gets a rule here.
 */

/**
 * The Kueue CRDs come from the Kueue module pinned in the repository's `cluster/go.mod` (the same module the local
 * control plane builds and installs), located through the Go module cache: `go mod download` fetches it once.
 */
function kueueCrdDir(): string {
  const clusterModule = path.resolve(__dirname, '../../../..', 'cluster');
  const result = spawnSync(
    'go',
    ['mod', 'download', '-json', 'sigs.k8s.io/kueue'],
    { cwd: clusterModule, encoding: 'utf8' },
  );
  if (result.status !== 0) {
    throw new Error(
      `Could not locate the Kueue module pinned in ${clusterModule}/go.mod (needs Go and the Go module proxy): ${result.stderr}${result.stdout}`,
    );
  }
  const { Dir } = JSON.parse(result.stdout) as { Dir: string };
  return path.join(Dir, 'config/components/crd/bases');
}

let crdDir: string | undefined;
function readKueueCrd(file: string): string {
  crdDir ??= kueueCrdDir();
  return fs.readFileSync(path.join(crdDir, file), 'utf8');
}

const KUEUE_CRD_FILES: Record<string, string> = {
  ClusterQueue: 'kueue.x-k8s.io_clusterqueues.yaml',
  LocalQueue: 'kueue.x-k8s.io_localqueues.yaml',
  ResourceFlavor: 'kueue.x-k8s.io_resourceflavors.yaml',
  Cohort: 'kueue.x-k8s.io_cohorts.yaml',
  WorkloadPriorityClass: 'kueue.x-k8s.io_workloadpriorityclasses.yaml',
};

type Schema = Record<string, unknown>;

/** Rejects unknown fields wherever the schema lists properties and does not preserve unknown fields. */
function strict(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strict);
  if (schema === null || typeof schema !== 'object') return schema;
  const copy: Schema = {};
  for (const [key, value] of Object.entries(schema as Schema)) {
    copy[key] =
      key === 'properties'
        ? Object.fromEntries(
            Object.entries(value as Schema).map(([name, sub]) => [
              name,
              strict(sub),
            ]),
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
const kueueValidators = new Map<string, ValidateFunction>();

function kueueValidator(
  kind: string,
  version: string,
): ValidateFunction | undefined {
  const key = `${kind}/${version}`;
  if (!kueueValidators.has(key)) {
    const file = KUEUE_CRD_FILES[kind];
    if (!file) return undefined;
    const crd = parse(readKueueCrd(file));
    const served = crd.spec.versions.find(
      (v: { name: string }) => v.name === version,
    );
    if (!served) return undefined;
    kueueValidators.set(
      key,
      ajv.compile(strict(served.schema.openAPIV3Schema) as Schema),
    );
  }
  return kueueValidators.get(key);
}

interface ClusterQueueSpec {
  cohort?: string;
  cohortName?: string;
  preemption?: {
    reclaimWithinCohort?: string;
    borrowWithinCohort?: { policy?: string };
  };
  resourceGroups?: Array<{
    coveredResources: string[];
    flavors: Array<{
      name: string;
      resources: Array<{ name: string; borrowingLimit?: unknown }>;
    }>;
  }>;
}

/** The ClusterQueue CEL rules of the CRD and the resource-group rules of Kueue's webhook. */
function clusterQueueRules(spec: ClusterQueueSpec): string[] {
  const problems: string[] = [];
  const groups = spec.resourceGroups ?? [];
  const seenResources = new Set<string>();
  const seenFlavors = new Set<string>();
  groups.forEach((group, g) => {
    for (const resource of group.coveredResources) {
      if (seenResources.has(resource)) {
        problems.push(
          `resource ${resource} is covered by more than one resource group`,
        );
      }
      seenResources.add(resource);
    }
    group.flavors.forEach(flavor => {
      if (seenFlavors.has(flavor.name)) {
        problems.push(
          `flavor ${flavor.name} appears in more than one resource group`,
        );
      }
      seenFlavors.add(flavor.name);
      if (flavor.resources.length !== group.coveredResources.length) {
        problems.push(
          `resourceGroups[${g}] flavor ${flavor.name}: flavors must have the same number of resources as the coveredResources`,
        );
      }
      flavor.resources.forEach((resource, r) => {
        if (resource.name !== group.coveredResources[r]) {
          problems.push(
            `resourceGroups[${g}] flavor ${flavor.name} resource ${r}: ${resource.name} must match coveredResources[${r}]`,
          );
        }
      });
    });
  });
  const cohort = spec.cohortName ?? spec.cohort;
  if (
    !cohort &&
    groups.some(g =>
      g.flavors.some(f =>
        f.resources.some(r => r.borrowingLimit !== undefined),
      ),
    )
  ) {
    problems.push('borrowingLimit must be nil when cohort is empty');
  }
  const preemption = spec.preemption;
  if (
    preemption?.reclaimWithinCohort === 'Never' &&
    preemption.borrowWithinCohort?.policy !== undefined &&
    preemption.borrowWithinCohort.policy !== 'Never'
  ) {
    problems.push(
      'reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never',
    );
  }
  return problems;
}

interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

/**
 * The ResourceFlavor toleration CEL rules of the CRD, and the taint rule of Kueue's ResourceFlavor webhook (as for
 * Nodes: one taint per key and effect).
 */
function resourceFlavorRules(spec: {
  tolerations?: Toleration[];
  nodeTaints?: Array<{ key: string; value?: string; effect: string }>;
}): string[] {
  const problems: string[] = [];
  const taints = new Set<string>();
  (spec.nodeTaints ?? []).forEach((taint, i) => {
    const id = `${taint.key}\u0000${taint.effect}`;
    if (taints.has(id)) {
      problems.push(
        `spec.nodeTaints[${i}] ${taint.key}:${taint.effect}: taints must be unique by key and effect pair`,
      );
    }
    taints.add(id);
  });
  for (const t of spec.tolerations ?? []) {
    if (t.key === undefined && t.operator !== 'Exists') {
      problems.push("operator must be Exists when 'key' is empty");
    }
    if (t.tolerationSeconds !== undefined && t.effect !== 'NoExecute') {
      problems.push(
        "effect must be 'NoExecute' when 'tolerationSeconds' is set",
      );
    }
    if (t.operator !== undefined && !['Equal', 'Exists'].includes(t.operator)) {
      problems.push("supported toleration values: 'Equal'(default), 'Exists'");
    }
    if (t.operator === 'Exists' && t.value !== undefined) {
      problems.push("a value must be empty when 'operator' is 'Exists'");
    }
  }
  return problems;
}

function kueueProblems(object: KubernetesObject): string[] {
  const version = object.apiVersion!.split('/')[1];
  const validate = kueueValidator(object.kind!, version);
  if (!validate) {
    return [`no Kueue CRD schema for ${object.apiVersion} ${object.kind}`];
  }
  const problems = validate(object)
    ? []
    : (validate.errors ?? []).map(
        e =>
          `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`,
      );
  const spec = (object as { spec?: unknown }).spec ?? {};
  if (object.kind === 'ClusterQueue')
    problems.push(...clusterQueueRules(spec as ClusterQueueSpec));
  if (object.kind === 'ResourceFlavor')
    problems.push(
      ...resourceFlavorRules(spec as Parameters<typeof resourceFlavorRules>[0]),
    );
  return problems;
}

function metadataProblems(object: KubernetesObject): string[] {
  const problems: string[] = [];
  const metadata = object.metadata ?? {};
  if (!object.apiVersion || !object.kind)
    problems.push('apiVersion and kind are required');
  if (!metadata.name || !isDns1123Label(metadata.name)) {
    problems.push(
      `name ${metadata.name} is not a DNS-1123 label of at most 63 characters`,
    );
  }
  if (metadata.namespace !== undefined && !isDns1123Label(metadata.namespace)) {
    problems.push(`namespace ${metadata.namespace} is not a DNS-1123 label`);
  }
  const labelMaps = [
    metadata.labels,
    (object as any).spec?.template?.metadata?.labels,
  ];
  for (const labels of labelMaps) {
    for (const [key, value] of Object.entries(labels ?? {})) {
      if (!isLabelKey(key)) problems.push(`label key ${key} is invalid`);
      if (!isLabelValue(String(value)))
        problems.push(`label ${key} value ${value} is invalid`);
    }
  }
  return problems;
}

function kubernetesModelsProblems(objects: KubernetesObject[]): string[][] {
  if (objects.length === 0) return [];
  const result = spawnSync(
    process.execPath,
    [path.join(__dirname, 'validateWithKubernetesModels.mjs')],
    { input: JSON.stringify(objects), encoding: 'utf8' },
  );
  if (result.status !== 0) {
    throw new Error(
      `kubernetes-models validation failed to run: ${result.stderr}`,
    );
  }
  return JSON.parse(result.stdout);
}

/**
 * The problems of each object (an empty list for a valid one), prefixed with its kind and name. One child process
 * validates all core and KEDA objects, so pass everything in one call.
 */
export function validateEach(objects: KubernetesObject[]): string[][] {
  const isKueue = (o: KubernetesObject) =>
    o.apiVersion?.startsWith('kueue.x-k8s.io/') ?? false;
  const others = objects.filter(o => !isKueue(o) && !isOperationsObject(o));
  const otherProblems = kubernetesModelsProblems(others);
  const crdProblems = (object: KubernetesObject) =>
    isKueue(object) ? kueueProblems(object) : operationsCrdProblems(object);
  return objects.map(object => {
    const problems = [
      ...metadataProblems(object),
      ...(isKueue(object) || isOperationsObject(object)
        ? crdProblems(object)
        : otherProblems[others.indexOf(object)]),
    ];
    return problems.map(
      p =>
        `${object.kind} ${object.metadata?.namespace ?? ''}/${
          object.metadata?.name
        }: ${p}`,
    );
  });
}

/**
 * Every problem of every object (empty when all are valid).
 */
export function validateManifests(objects: KubernetesObject[]): string[] {
  return validateEach(objects).flat();
}
