export { describeOnLocalCluster, localClusterKubeconfig } from './localCluster';
export { describeObject, RawKubernetesClient } from './RawKubernetesClient';
export type { RawResponse } from './RawKubernetesClient';
export { metricSamples } from './metricSamples';
export type { MetricSample } from './metricSamples';
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
