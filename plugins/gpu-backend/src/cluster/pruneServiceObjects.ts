import type { LoggerService } from '@backstage/backend-plugin-api';
import type { KubernetesObject } from '@kubernetes/client-node';
import {
  FIELD_MANAGER,
  OWNERSHIP_LABELS,
} from '@gpu-platform/backstage-plugin-gpu-node';
import { describeRef, refOf } from './objectRef';
import { KubernetesApplyError } from './errors';
import type { ClusterApplier, ObjectRef, OwnedKind } from './types';

/** A kind of object, at the API version it is listed with. */
export interface ServiceObjectKind {
  apiVersion: string;
  kind: string;
}

/**
 * Every kind `renderServiceManifests` renders for a service (each object with the service's ownership label), and
 * so the only kinds a prune lists and deletes (and, with its manifests' kinds, those a teardown deletes, see
 * {@link teardownKinds}): the model-cache claim, the Service, a DRA pool's ResourceClaimTemplate,
 * the Deployment, the PodDisruptionBudget, the autoscaler (KEDA ScaledObject, KEDA HTTP add-on HTTPScaledObject or
 * HPA), the PodMonitor and the PrometheusRule of a latency budget. The team's LocalQueue and namespace are shared by its services and never listed here.
 * `pruneServiceObjects.test.ts` checks the list against what the renderer produces.
 */
export const SERVICE_OBJECT_KINDS: readonly ServiceObjectKind[] = [
  { apiVersion: 'v1', kind: 'PersistentVolumeClaim' },
  { apiVersion: 'v1', kind: 'Service' },
  { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaimTemplate' },
  { apiVersion: 'apps/v1', kind: 'Deployment' },
  { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget' },
  { apiVersion: 'keda.sh/v1alpha1', kind: 'ScaledObject' },
  { apiVersion: 'http.keda.sh/v1alpha1', kind: 'HTTPScaledObject' },
  { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' },
  { apiVersion: 'monitoring.coreos.com/v1', kind: 'PodMonitor' },
  { apiVersion: 'monitoring.coreos.com/v1', kind: 'PrometheusRule' },
];

/** The API group of an `apiVersion` (`''` for the core group). */
function groupOf(apiVersion: string): string {
  return apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
}

/** An object's identity whatever version it is read at: group, kind, namespace and name. */
function identityOf(ref: ObjectRef): string {
  return `${groupOf(ref.apiVersion)}/${ref.kind}/${ref.namespace ?? ''}/${
    ref.name
  }`;
}

const PRUNABLE = new Set(
  SERVICE_OBJECT_KINDS.map(k => `${groupOf(k.apiVersion)}/${k.kind}`),
);

/**
 * Whether a change of a service has to prune when its manifests are applied: its generation is not the one last
 * applied, and an earlier one may have been (a service applied for the first time has nothing of an earlier
 * generation in its cluster). A drift repair applies the generation already applied: nothing to prune.
 */
export function needsPrune(service: {
  generation: number;
  observedGeneration?: number;
}): boolean {
  return (
    service.generation > 1 && service.observedGeneration !== service.generation
  );
}

/**
 * The objects a prune deletes, pure: of the objects found in the cluster, those that carry the service's ownership
 * labels (its id, managed by Backstage), are of a kind in {@link SERVICE_OBJECT_KINDS}, are not being deleted already
 * nor controlled by another object (a controller made them), and are not among the manifests just applied (compared by group, kind, namespace and name, whatever the version).
 * Anything else (another service's objects, the team's LocalQueue, objects without the labels) is never chosen.
 * Sorted by kind in the order of {@link SERVICE_OBJECT_KINDS}, then namespace and name.
 */
export function staleServiceObjects(
  serviceId: string,
  manifests: readonly KubernetesObject[],
  found: readonly KubernetesObject[],
): ObjectRef[] {
  const rendered = new Set(manifests.map(m => identityOf(refOf(m))));
  const kindOrder = (ref: ObjectRef) =>
    SERVICE_OBJECT_KINDS.findIndex(
      k =>
        k.kind === ref.kind &&
        groupOf(k.apiVersion) === groupOf(ref.apiVersion),
    );
  return found
    .filter(object => {
      const labels = object.metadata?.labels ?? {};
      return (
        Boolean(serviceId) &&
        labels[OWNERSHIP_LABELS.serviceId] === serviceId &&
        labels[OWNERSHIP_LABELS.managedBy] === FIELD_MANAGER &&
        !object.metadata?.deletionTimestamp &&
        // Made by a controller (KEDA's HPA copies its ScaledObject's labels): the controller's, not the service's.
        !(object.metadata?.ownerReferences ?? []).some(o => o.controller) &&
        PRUNABLE.has(`${groupOf(object.apiVersion ?? '')}/${object.kind}`)
      );
    })
    .map(refOf)
    .filter(ref => !rendered.has(identityOf(ref)))
    .sort(
      (a, b) =>
        kindOrder(a) - kindOrder(b) ||
        `${a.namespace ?? ''}/${a.name}`.localeCompare(
          `${b.namespace ?? ''}/${b.name}`,
        ),
    );
}

/**
 * The kinds of {@link SERVICE_OBJECT_KINDS} the applier's cluster serves, in that order: a kind of an API group whose
 * CRD is not installed (e.g. KEDA's) is skipped, as listing it would fail; core kinds are always served. Throws what
 * the discovery threw.
 */
export async function servedServiceObjectKinds(
  applier: Pick<ClusterApplier, 'serves'>,
): Promise<ServiceObjectKind[]> {
  const served: ServiceObjectKind[] = [];
  for (const kind of SERVICE_OBJECT_KINDS) {
    if (
      groupOf(kind.apiVersion) === '' ||
      (await applier.serves(kind.apiVersion, kind.kind))
    ) {
      served.push(kind);
    }
  }
  return served;
}

/**
 * The kinds a teardown (a delete, or the removal of a moved service from the cluster it left) deletes by the
 * service's ownership labels: the kinds of its stored manifests (where they are), then every other kind of
 * {@link SERVICE_OBJECT_KINDS} the cluster serves ({@link servedServiceObjectKinds}) in the service's namespace. So an
 * object its current manifests no longer render (a prune that failed, a move that also dropped a kind) is deleted
 * with the rest rather than left behind. Kinds are compared by group, kind and namespace, whatever the version.
 */
export async function teardownKinds(
  applier: Pick<ClusterApplier, 'serves'>,
  service: { namespace: string },
  manifestKinds: readonly OwnedKind[],
): Promise<OwnedKind[]> {
  const kinds = new Map<string, OwnedKind>();
  const add = (kind: OwnedKind) => {
    const key = `${groupOf(kind.apiVersion)}/${kind.kind}/${
      kind.namespace ?? ''
    }`;
    if (!kinds.has(key)) kinds.set(key, kind);
  };
  manifestKinds.forEach(add);
  for (const kind of await servedServiceObjectKinds(applier)) {
    add({ ...kind, namespace: service.namespace });
  }
  return [...kinds.values()];
}

/**
 * After the whole of a service's manifests were applied, deletes its objects those manifests no longer render (an
 * earlier generation's), as `kubectl apply --prune` or Flux's garbage collection do: per kind of
 * {@link SERVICE_OBJECT_KINDS} that the cluster serves (a kind whose CRD is not installed, e.g. KEDA's, is skipped),
 * one list by the service's ownership labels in its namespace, then one delete per object
 * {@link staleServiceObjects} chooses, keeping the dependents of one a rendered object depends on or replaces
 * ({@link ownersOfRendered}, {@link replacements}); what replaces an object is applied again once it is gone.
 * Returns what it deleted (an object gone meanwhile included). Throws `KubernetesApplyError` when a list or delete
 * fails after its retries, or a replaced object is not gone in time; what was deleted before stays deleted, and a
 * prune run again finds the rest.
 */
export async function pruneServiceObjects(
  applier: Pick<
    ClusterApplier,
    'cluster' | 'serves' | 'list' | 'deleteObjects' | 'read' | 'apply'
  >,
  service: {
    id: string;
    namespace: string;
    manifests: readonly KubernetesObject[];
  },
  options: ReplacementWait = {},
): Promise<ObjectRef[]> {
  const labelSelector = `${OWNERSHIP_LABELS.serviceId}=${service.id},${OWNERSHIP_LABELS.managedBy}=${FIELD_MANAGER}`;
  const found: KubernetesObject[] = [];
  for (const kind of await servedServiceObjectKinds(applier)) {
    found.push(
      ...(await applier.list({
        ...kind,
        namespace: service.namespace,
        labelSelector,
      })),
    );
  }
  const stale = staleServiceObjects(service.id, service.manifests, found);
  const keepDependents = ownersOfRendered(service.manifests, found);
  const replaced = replacements(service.manifests, stale);
  for (const r of replaced) keepDependents.add(identityOf(r.replaced));
  const deleted: ObjectRef[] = [];
  for (const ref of stale) {
    const [result] = await applier.deleteObjects([ref], {
      orphanDependents: keepDependents.has(identityOf(ref)),
    });
    deleted.push(result.ref);
  }
  await applyReplacementsAgain(applier, replaced, options);
  return deleted;
}

/**
 * Of the objects found, those an object the manifests still render depends on (names in its ownerReferences), by
 * identity. KEDA's HTTP add-on owns the ScaledObject it makes under its HTTPScaledObject's name, and a wake query's
 * ScaledObject of that name takes it over: pruning the HTTPScaledObject must keep its dependents, or the garbage
 * collector deletes what was just applied.
 */
export function ownersOfRendered(
  manifests: readonly KubernetesObject[],
  found: readonly KubernetesObject[],
): Set<string> {
  const rendered = new Set(manifests.map(m => identityOf(refOf(m))));
  const ownerUids = new Set(
    found
      .filter(object => rendered.has(identityOf(refOf(object))))
      .flatMap(object =>
        (object.metadata?.ownerReferences ?? []).map(owner => owner.uid),
      ),
  );
  return new Set(
    found
      .filter(object => ownerUids.has(object.metadata?.uid ?? ''))
      .map(object => identityOf(refOf(object))),
  );
}

/** How long a prune waits for a replaced object to be gone before it applies what replaces it again (tests). */
export interface ReplacementWait {
  timeoutMs?: number;
  intervalMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * What a controller makes from an object of a kind the product renders, under the object's own name, and owns: KEDA's
 * HTTP add-on makes a ScaledObject of each HTTPScaledObject's name. By group and kind (as {@link identityOf} starts).
 */
const MADE_UNDER_ITS_NAME: ReadonlyMap<string, string> = new Map([
  ['http.keda.sh/HTTPScaledObject', 'keda.sh/ScaledObject'],
]);

/** A stale object, and the rendered object its controller made under its name that replaces it. */
export interface Replacement {
  replaced: ObjectRef;
  by: KubernetesObject;
}

/**
 * Of the stale objects, those replaced by what their controller made under their name and the manifests now render
 * ({@link MADE_UNDER_ITS_NAME}): a wake query's ScaledObject replaces the HTTPScaledObject of its name, whose add-on
 * made and owns a ScaledObject of that name. The add-on may take the ScaledObject up after the prune listed it (the
 * apply came first, the add-on a moment later), so the list's ownerReferences ({@link ownersOfRendered}) cannot be
 * trusted to name it: a replaced object is deleted keeping its dependents, and what replaces it applied again once
 * it is gone ({@link applyReplacementsAgain}).
 */
export function replacements(
  manifests: readonly KubernetesObject[],
  stale: readonly ObjectRef[],
): Replacement[] {
  const rendered = new Map(manifests.map(m => [identityOf(refOf(m)), m]));
  return stale.flatMap(replaced => {
    const made = MADE_UNDER_ITS_NAME.get(
      `${groupOf(replaced.apiVersion)}/${replaced.kind}`,
    );
    const by =
      made &&
      rendered.get(`${made}/${replaced.namespace ?? ''}/${replaced.name}`);
    return by ? [{ replaced, by }] : [];
  });
}

/**
 * Once each replaced object is gone (its finalizers run: KEDA's HTTP add-on no longer touches the ScaledObject of its
 * name), applies what replaces it again: whatever the add-on wrote into it between the apply and the prune is
 * overwritten, and one the garbage collector took with its owner is made again. Throws `KubernetesApplyError` when a
 * replaced object is still there after the wait (a finalizer whose controller is not running): the prune is tried
 * again.
 */
async function applyReplacementsAgain(
  applier: Pick<ClusterApplier, 'read' | 'apply' | 'cluster'>,
  replaced: readonly Replacement[],
  {
    timeoutMs = 30_000,
    intervalMs = 250,
    sleep = ms => new Promise(resolve => setTimeout(resolve, ms)),
  }: ReplacementWait,
): Promise<void> {
  if (replaced.length === 0) return;
  for (const { replaced: ref } of replaced) {
    const deadline = Date.now() + timeoutMs;
    let attempts = 1;
    while (await applier.read(ref)) {
      if (Date.now() >= deadline) {
        throw new KubernetesApplyError(
          applier.cluster,
          ref,
          attempts,
          `still there ${Math.round(
            timeoutMs / 1000,
          )} s after its prune (a finalizer whose controller does not run?); what replaces it is applied once it is gone`,
        );
      }
      attempts += 1;
      await sleep(intervalMs);
    }
  }
  await applier.apply(replaced.map(r => r.by));
}

/**
 * Applies a service's stored manifests (its team's namespaced objects and its own, in order) and, when its
 * generation is not the one last applied ({@link needsPrune}), prunes what they no longer render
 * ({@link pruneServiceObjects}): only after every object was applied, so a failed apply deletes nothing. Returns what
 * was pruned; throws what the apply or the prune threw.
 */
export async function applyAndPrune(
  applier: ClusterApplier,
  service: {
    id: string;
    namespace: string;
    generation: number;
    observedGeneration?: number;
    manifests?: readonly KubernetesObject[];
  },
  logger?: LoggerService,
): Promise<ObjectRef[]> {
  const manifests = [...(service.manifests ?? [])];
  await applier.apply(manifests);
  if (!needsPrune(service)) return [];
  const pruned = await pruneServiceObjects(applier, { ...service, manifests });
  if (pruned.length > 0) {
    logger?.info('Pruned objects a GPU service no longer renders', {
      serviceId: service.id,
      generation: service.generation,
      objects: pruned.map(describeRef).join(', '),
    });
  }
  return pruned;
}
