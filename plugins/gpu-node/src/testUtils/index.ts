export { describeOnLocalCluster, localClusterKubeconfig } from './localCluster';
