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
  modelCache: string;
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
    autoscaler: stableName([name]),
    podDisruptionBudget: stableName([name]),
    podMonitor: stableName([name]),
    latencyRule: stableName([name, 'latency']),
    resourceClaimTemplate: stableName([name, 'gpu']),
  };
}
