import { UndeliveredObject } from '@gpu-platform/backstage-plugin-gpu-common';
import type { KubernetesObject } from '@kubernetes/client-node';
import { ClusterApplier } from '../cluster';
import { refOf } from '../cluster/objectRef';
import {
  apiGroup,
  CRD_INSTALL_HINTS,
  namespaceHint,
  platformPartOf,
} from './platformParts';

/**
 * Splits rendered platform objects into those the cluster can take (in their order) and those it cannot: a custom
 * resource whose kind the cluster does not serve (its CRD is not installed), or an object whose namespace does not
 * exist. Asks API discovery once per kind and reads each namespace once; sends nothing that changes the cluster.
 */
export async function deliverableObjects(
  applier: ClusterApplier,
  objects: KubernetesObject[],
): Promise<{
  deliverable: KubernetesObject[];
  undelivered: UndeliveredObject[];
}> {
  const served = new Map<string, boolean>();
  const namespaces = new Map<string, boolean>();
  const deliverable: KubernetesObject[] = [];
  const undelivered: UndeliveredObject[] = [];
  for (const object of objects) {
    const ref = refOf(object);
    const group = apiGroup(ref.apiVersion);
    if (group !== '') {
      const kind = `${ref.apiVersion} ${ref.kind}`;
      if (!served.has(kind)) {
        served.set(kind, await applier.serves(ref.apiVersion, ref.kind));
      }
      if (!served.get(kind)) {
        undelivered.push({
          ...ref,
          reason: 'crd-not-installed',
          message: `CRD not installed: the cluster does not serve ${
            ref.kind
          } (${ref.apiVersion}); ${
            CRD_INSTALL_HINTS[group] ?? `install the CRD of ${group}`
          }`,
        });
        continue;
      }
    }
    if (ref.namespace) {
      if (!namespaces.has(ref.namespace)) {
        const namespace = await applier.read({
          apiVersion: 'v1',
          kind: 'Namespace',
          name: ref.namespace,
        });
        namespaces.set(ref.namespace, namespace !== undefined);
      }
      if (!namespaces.get(ref.namespace)) {
        undelivered.push({
          ...ref,
          reason: 'namespace-missing',
          message: `Namespace ${ref.namespace} does not exist: ${namespaceHint(
            platformPartOf(object),
            ref.namespace,
          )}`,
        });
        continue;
      }
    }
    deliverable.push(object);
  }
  return { deliverable, undelivered };
}
