export { describeOnLocalCluster, localClusterKubeconfig } from './localCluster';
export { describeObject, RawKubernetesClient } from './RawKubernetesClient';
export type { RawResponse } from './RawKubernetesClient';
export {
  simulatedLoad,
  simulatedMetricsText,
} from '../simulation/simulatedMetrics';
export type {
  SimulatedLoad,
  SimulatedNode,
  SimulatedPod,
  SimulatedTier,
} from '../simulation/simulatedMetrics';
