import type { KubernetesObject } from '@kubernetes/client-node';

/**
 * An informer's object without its managed fields: for the kinds the product follows but does not apply (pods,
 * ReplicaSets, Workloads, Warning events), whose managed fields nothing reads. They are often the larger part of such an object (the
 * kubelet's, the controllers' and Kueue's field sets), and the informers hold one object per pod.
 */
export function withoutManagedFields(
  object: KubernetesObject,
): KubernetesObject {
  if (!object.metadata?.managedFields) return object;
  const { managedFields: _dropped, ...metadata } = object.metadata;
  return { ...object, metadata };
}

/**
 * An informer's object without the managed fields of its status subresource: for the kinds the product applies,
 * whose other managed fields tell the DifferenceApplier who changed what (`liveSignature` leaves the status's out).
 */
export function withoutStatusManagedFields(
  object: KubernetesObject,
): KubernetesObject {
  const fields = object.metadata?.managedFields;
  if (!fields?.some(entry => entry.subresource === 'status')) return object;
  return {
    ...object,
    metadata: {
      ...object.metadata,
      managedFields: fields.filter(entry => entry.subresource !== 'status'),
    },
  };
}
