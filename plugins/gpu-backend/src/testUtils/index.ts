/**
 * Test utilities for packages that test against the gpu backend: a real Prometheus loaded with generated DCGM and
 * vLLM history (used by this package's integration tests and the app's end-to-end tests), and helpers for tests on
 * the local Kubernetes control plane (`scripts/cluster`): typed clients, polling, a test admission webhook that holds
 * Deployment applies, and the `describeOnLocalCluster` guard; and `databaseClosedOnShutdown`, the database service
 * for test backends that closes each plugin's client when the backend stops.
 *
 * @packageDocumentation
 */
export * from './prometheus';
export { startAdmissionGate } from './admissionGate';
export type { AdmissionGate } from './admissionGate';
export {
  createNamespaces,
  eventually,
  hasCondition,
  localClusterClients,
  podsOf,
  smallServiceRequest,
  workloadsOfPods,
} from './localCluster';
export type { KueueWorkload, LocalClusterClients } from './localCluster';
export {
  createFluxSyncedRepository,
  fluxObjects,
  giteaApi,
  localForge,
  mergePullRequest,
  removeFluxSyncedRepository,
} from './localGitea';
export type { FluxObjects, GiteaCall, LocalForge } from './localGitea';
export {
  describeOnLocalCluster,
  localClusterKubeconfig,
} from '@gpu-platform/backstage-plugin-gpu-node/testUtils';
export { databaseClosedOnShutdown } from './databaseClosedOnShutdown';
