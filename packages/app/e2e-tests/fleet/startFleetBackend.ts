/**
 * The fleet end-to-end test's web server: the Backstage backend (packages/backend) on two local control planes at
 * once, as `./scripts/start --cluster --fleet` runs it: `local` (dev and staging) from `GPU_TEST_KUBECONFIG` and
 * `prod-local` (production) from `GPU_TEST_FLEET_KUBECONFIG`, the on-demand L4 and H100 pools on prod-local
 * (scripts/fleet-config.js), app-config.local-fleet.yaml for the clusters and the Kubernetes plugin (each entity's
 * `backstage.io/kubernetes-cluster`, read-only ServiceAccount tokens), sign-in as app-config.e2e.yaml does it. Both
 * control planes must be up (`scripts/test` starts them; by hand, `GPU_CLUSTER_DIR=<dir> scripts/cluster up` twice
 * with two port bases): without them it fails, naming the variable.
 *
 * Run with `node --require sucrase/register packages/app/e2e-tests/fleet/startFleetBackend.ts`.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT, runBackendUntilStopped } from '../support/backendProcess';

const CLUSTER_SCRIPT = resolve(REPO_ROOT, 'scripts/cluster');

function kubeconfigOf(variable: string): string {
  const path = process.env[variable];
  if (path && existsSync(path)) return path;
  throw new Error(
    `The fleet end-to-end test needs two local control planes: ${variable} is ${
      path ?? 'not set'
    }. Start one with GPU_CLUSTER_DIR=<dir> GPU_CLUSTER_PORT_BASE=<base> scripts/cluster up and point it at <dir>/kubeconfig.`,
  );
}

/** `scripts/cluster <command>` on the control plane whose state directory holds `kubeconfig`. */
async function cluster(kubeconfig: string, command: string): Promise<string> {
  const { stdout } = await promisify(execFile)(CLUSTER_SCRIPT, [command], {
    cwd: REPO_ROOT,
    // The state directory records the cluster's ports: no port base of another cluster from the environment.
    env: {
      ...process.env,
      GPU_CLUSTER_DIR: dirname(kubeconfig),
      GPU_CLUSTER_PORT_BASE: '',
    },
  });
  return stdout;
}

/** What app-config.local-fleet.yaml reads of one cluster: its API server, CA and the read-only token. */
async function clusterVariables(kubeconfig: string) {
  // The team namespaces of app-config.yaml (ml-serving), and the read-only token of the Kubernetes tab.
  await cluster(kubeconfig, 'namespaces');
  const tokenFile = join(dirname(kubeconfig), 'backstage-token');
  if (!existsSync(tokenFile)) await cluster(kubeconfig, 'access');
  const env = Object.fromEntries(
    [
      ...(await cluster(kubeconfig, 'env')).matchAll(/^export (\w+)=(.*)$/gm),
    ].map(([, name, value]) => [name, value]),
  );
  return {
    kubeconfig,
    apiServer: env.GPU_CLUSTER_API_SERVER,
    caFile: env.GPU_CLUSTER_CA_FILE,
    token: (await readFile(tokenFile, 'utf8')).trim(),
  };
}

async function main() {
  const [local, prod] = await Promise.all([
    clusterVariables(kubeconfigOf('GPU_TEST_KUBECONFIG')),
    clusterVariables(kubeconfigOf('GPU_TEST_FLEET_KUBECONFIG')),
  ]);
  // The backend's SQLite files (apply mode needs a database that outlives the process) and the fleet's pool config,
  // in a directory of this run, removed when it stops.
  const runDir = await mkdtemp(join(tmpdir(), 'gpu-e2e-fleet-'));
  const fleetConfig = join(runDir, 'app-config.fleet.yaml');
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      resolve(REPO_ROOT, 'scripts/fleet-config.js'),
      resolve(REPO_ROOT, 'app-config.yaml'),
    ],
    { cwd: REPO_ROOT },
  );
  await writeFile(fleetConfig, stdout);
  runBackendUntilStopped({
    configs: [
      'app-config.yaml',
      'app-config.e2e.yaml',
      'app-config.local-cluster.yaml',
      'app-config.local-fleet.yaml',
      fleetConfig,
    ],
    env: {
      GPU_CLUSTER_APP_DATA_DIR: runDir,
      GPU_CLUSTER_KUBECONFIG: local.kubeconfig,
      GPU_CLUSTER_API_SERVER: local.apiServer,
      GPU_CLUSTER_CA_FILE: local.caFile,
      GPU_CLUSTER_TOKEN: local.token,
      GPU_FLEET_CLUSTER_KUBECONFIG: prod.kubeconfig,
      GPU_FLEET_CLUSTER_API_SERVER: prod.apiServer,
      GPU_FLEET_CLUSTER_CA_FILE: prod.caFile,
      GPU_FLEET_CLUSTER_TOKEN: prod.token,
      APP_CONFIG_auth_providers_guest_userEntityRef: 'user:default/guest',
    },
    cleanUp: () => rm(runDir, { recursive: true, force: true }),
  });
}

main().catch(error => {
  process.stderr.write(
    `e2e: could not start the fleet backend: ${error.stack ?? error}\n`,
  );
  process.exit(1);
});
