import { InputError } from '@backstage/errors';
import {
  isGpuDomainError,
  parseServiceEntityRef,
} from '@gpu-platform/backstage-plugin-gpu-common';

/**
 * The canonical ref (`component:namespace/name`) of the Component an action's `entityRef` input names, validated
 * by gpu-common's `parseServiceEntityRef` (the same validator the gpu backend applies); kind Component and namespace
 * default when omitted. `InputError` naming the action and the field when it is not a valid Component ref.
 */
export function normaliseEntityRef(
  actionId: string,
  entityRef: unknown,
): string {
  try {
    return parseServiceEntityRef(entityRef).ref;
  } catch (error) {
    if (isGpuDomainError(error)) {
      throw new InputError(
        `Invalid input to ${actionId}: ${(error as Error).message}`,
      );
    }
    throw error;
  }
}
