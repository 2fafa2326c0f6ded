import { InputError } from '@backstage/errors';
import {
  CreateServiceBody,
  parseServiceEntityRef,
  ServiceRequest,
} from '@gpu-platform/backstage-plugin-gpu-common';

/** A service request as a caller sends it: `POST /services`'s body or the `create-gpu-service` action's input. */
export interface CreateServiceInput {
  request: unknown;
  entityRef?: string;
  requestKey?: string;
  mode?: string;
  dryRun?: boolean;
  provisional?: boolean;
}

/**
 * The request of a caller as the service manager takes it: the entity ref's grammar (a component, normalised), the
 * request key and mode checked here; the request's domain rules (known team, model, pool, tier policy) are checked
 * by the service manager (`validateServiceRequest`).
 */
export function parseCreateServiceBody(
  input: CreateServiceInput,
): CreateServiceBody {
  const { requestKey, mode } = input;
  if (
    requestKey !== undefined &&
    (requestKey.length < 1 || requestKey.length > 200)
  ) {
    throw new InputError(
      `Invalid requestKey: must be 1 to 200 characters, got ${requestKey.length}`,
    );
  }
  if (mode !== undefined && mode !== 'gitops') {
    throw new InputError(
      `Invalid mode "${mode}": the only mode a request may ask for is "gitops" (omit it for the cluster's mode)`,
    );
  }
  return {
    request: input.request as ServiceRequest,
    ...(input.entityRef !== undefined
      ? { entityRef: parseServiceEntityRef(input.entityRef).ref }
      : {}),
    ...(requestKey !== undefined ? { requestKey } : {}),
    ...(mode !== undefined ? { mode } : {}),
    ...(input.dryRun !== undefined ? { dryRun: input.dryRun } : {}),
    ...(input.provisional ? { provisional: true } : {}),
  };
}
