import { join } from 'node:path';

/** The running local cluster's kubeconfig, as the test command names it: GPU_TEST_KUBECONFIG, else GPU_CLUSTER_DIR's. */
export function defaultKubeconfig(): string {
  if (process.env.GPU_TEST_KUBECONFIG) return process.env.GPU_TEST_KUBECONFIG;
  if (process.env.GPU_CLUSTER_DIR) {
    return join(process.env.GPU_CLUSTER_DIR, 'kubeconfig');
  }
  return '';
}
