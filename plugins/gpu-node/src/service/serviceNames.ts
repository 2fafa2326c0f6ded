import { stableName } from '../names/stableName';

/**
 * Names of the objects of one service, derived from the service name (at most 40 characters, so every name stays a
 * DNS-1123 label).
 *
 * @public
 */
export interface ServiceObjectNames {
  deployment: string;
  service: string;
  /** The model-cache claim while at most one replica runs (`ReadWriteOnce`). */
  modelCache: string;
  /**
   * The model-cache claim when more replicas may run at once (`ReadWriteMany`): a claim's access modes cannot change
   * once it exists, so a service scaled past one replica gets a claim of its own and the other is pruned.
   */
  sharedModelCache: string;
  autoscaler: string;
  podDisruptionBudget: string;
  podMonitor: string;
  /** The PrometheusRule of a service's latency budget alert. */
  latencyRule: string;
  /** The ResourceClaimTemplate of a service on a DRA pool. */
  resourceClaimTemplate: string;
}

/**
 * The object names of a service called `name`.
 *
 * @public
 */
export function serviceObjectNames(name: string): ServiceObjectNames {
  return {
    deployment: stableName([name]),
    service: stableName([name]),
    modelCache: stableName([name, 'model-cache']),
    sharedModelCache: stableName([name, 'model-cache-shared']),
    autoscaler: stableName([name]),
    podDisruptionBudget: stableName([name]),
    podMonitor: stableName([name]),
    latencyRule: stableName([name, 'latency']),
    resourceClaimTemplate: stableName([name, 'gpu']),
  };
}
