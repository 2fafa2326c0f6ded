import type { KubernetesObject } from '@kubernetes/client-node';
import { InputError } from '@backstage/errors';
import { ObjectRef } from './types';

/** The reference of a rendered object; throws `InputError` when it lacks one. */
export function refOf(object: KubernetesObject): ObjectRef {
  const { apiVersion, kind, metadata } = object;
  if (!apiVersion || !kind || !metadata?.name) {
    throw new InputError(
      `Every object to apply needs apiVersion, kind and metadata.name; got ${JSON.stringify(
        { apiVersion, kind, name: metadata?.name },
      )}`,
    );
  }
  return {
    apiVersion,
    kind,
    name: metadata.name,
    ...(metadata.namespace ? { namespace: metadata.namespace } : {}),
  };
}

/** e.g. `Deployment ml/llama` or `ClusterQueue team-ml`. */
export function describeRef(ref: ObjectRef): string {
  return `${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`;
}
