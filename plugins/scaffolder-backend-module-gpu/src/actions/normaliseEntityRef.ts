import {
  KubernetesValidatorFunctions,
  parseEntityRef,
  stringifyEntityRef,
} from '@backstage/catalog-model';
import { InputError } from '@backstage/errors';

/**
 * A full entity ref (`kind:namespace/name`, kind Component and namespace default when omitted) from an action's
 * `entityRef` input; `InputError` naming the field when it is not a valid ref.
 */
export function normaliseEntityRef(
  actionId: string,
  entityRef: string,
): string {
  const invalid = (why: string) =>
    new InputError(
      `Invalid input to ${actionId}: entityRef: '${entityRef}' ${why}`,
    );
  let ref;
  try {
    ref = parseEntityRef(entityRef, {
      defaultKind: 'component',
      defaultNamespace: 'default',
    });
  } catch (error) {
    throw invalid(`is not an entity ref: ${(error as Error).message}`);
  }
  if (
    !KubernetesValidatorFunctions.isValidObjectName(ref.name) ||
    !KubernetesValidatorFunctions.isValidNamespace(ref.namespace)
  ) {
    throw invalid('is not a valid entity ref (kind:namespace/name)');
  }
  return stringifyEntityRef(ref);
}
