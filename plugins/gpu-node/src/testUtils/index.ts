export { describeOnLocalCluster, localClusterKubeconfig } from './localCluster';
export { describeObject, RawKubernetesClient } from './RawKubernetesClient';
export type { RawResponse } from './RawKubernetesClient';
