import { execFile } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { promisify } from 'node:util';

const CLUSTER_SCRIPT = resolve(__dirname, '../../../../scripts/cluster');

/**
 * Stops, starts or restarts one component of a local control plane (`scripts/cluster stop|start|restart <name>`): the
 * fault suites' API server or Kueue away for a while. `start` and `restart` of the API server return once it is ready.
 */
export async function clusterComponent(
  kubeconfig: string,
  action: 'stop' | 'start' | 'restart',
  name: string,
): Promise<void> {
  await promisify(execFile)(CLUSTER_SCRIPT, [action, name], {
    // The cluster's own ports (its state directory records them): scripts/test exports the test cluster's
    // GPU_CLUSTER_PORT_BASE, which would send the fleet's second cluster's readiness check to the test cluster.
    env: {
      ...process.env,
      GPU_CLUSTER_DIR: dirname(kubeconfig),
      GPU_CLUSTER_PORT_BASE: '',
    },
  });
}
