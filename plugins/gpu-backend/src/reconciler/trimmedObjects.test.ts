import type { KubernetesObject } from '@kubernetes/client-node';
import {
  withoutManagedFields,
  withoutStatusManagedFields,
} from './trimmedObjects';

const spec = { manager: 'backstage-gpu', operation: 'Apply' as const };
const status = {
  manager: 'kube-controller-manager',
  operation: 'Update' as const,
  subresource: 'status',
};

function deployment(managedFields?: object[]): KubernetesObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'chat',
      namespace: 'team',
      resourceVersion: '7',
      ...(managedFields && { managedFields }),
    },
  };
}

describe('trimmedObjects', () => {
  it('withoutManagedFields drops them all and keeps the rest of the object', () => {
    const object = deployment([spec, status]);
    expect(withoutManagedFields(object)).toEqual(deployment());
    // The object as sent is not changed.
    expect(object.metadata?.managedFields).toHaveLength(2);
    const none = deployment();
    expect(withoutManagedFields(none)).toBe(none);
  });

  it('withoutStatusManagedFields drops only those of the status subresource', () => {
    const object = deployment([spec, status]);
    expect(withoutStatusManagedFields(object)).toEqual(deployment([spec]));
    expect(object.metadata?.managedFields).toHaveLength(2);
    const specOnly = deployment([spec]);
    expect(withoutStatusManagedFields(specOnly)).toBe(specOnly);
  });
});
