/**
 * The API-side set-up of the local control plane, run by `scripts/cluster up` (not part of the product):
 *
 * - `control-plane` (API server up, controllers not yet started): the `kueue-system` namespace, every Kueue CRD from
 *   the Kueue module pinned in cluster/go.mod (conversion webhooks pointed at the local Kueue), Kueue's mutating and
 *   validating webhook configurations from the same module (the webhooks of the integrations it runs, served on
 *   loopback), the KEDA, Karpenter and Prometheus operator CRDs from their modules pinned in cluster/crds/go.mod
 *   (`pinnedCrds`), and kwok's default storage class.
 * - `nodes` (controllers running): one kwok Node per node of each pool of the platform config, advertising what the
 *   NVIDIA device plugin would for the pool's sharing config, then waits until the nodes are Ready and Kueue's
 *   webhooks answer. When the config has DRA pools (`allocation: dra`), also the NVIDIA DRA driver's DeviceClasses
 *   and, per node of those pools, the ResourceSlice its kubelet plugin would publish (gpu-node
 *   `simulatedResourceSlices`; nodes of DRA pools advertise no GPU extended resource).
 * - `access`: a `backstage` ServiceAccount in kube-system bound to the built-in `view` ClusterRole, and a token for it
 *   from the TokenRequest API written to `--token-file` (mode 0600): what the Backstage Kubernetes plugin reads the
 *   cluster with (its auth providers take bearer tokens, not the admin client certificate of the kubeconfig).
 * - `namespaces`: the namespaces of the teams of the platform config (`gpu.teams[].namespaces`; the product does not
 *   create namespaces, teams own them), for `scripts/start --cluster`.
 */
import { loadConfig } from '@backstage/config-loader';
import { ConfigReader } from '@backstage/config';
import { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { readPlatformConfig } from '@gpu-platform/backstage-plugin-gpu-common';
import {
  DYNAMIC_MIG_DEVICE_CLASS_MAPPING,
  dynamicMigDeviceClass,
  NVIDIA_DEVICE_CLASS_MAPPINGS,
  nvidiaDeviceClasses,
  renderResourceTransformations,
  simulatedGpuNodes,
  simulatedResourceSlices,
} from '@gpu-platform/backstage-plugin-gpu-node';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { kueueModuleObjects } from './kueueModuleObjects';
import { pinnedCrds } from './pinnedCrds';
import { RawClient } from './rawClient';

const FIELD_MANAGER = 'gpu-local-cluster';

/** The ServiceAccount the Backstage Kubernetes plugin reads the cluster as. */
const BACKSTAGE_ACCOUNT = { namespace: 'kube-system', name: 'backstage' };

/** Lifetime of its token: the cluster's certificates are issued for 30 days. */
const TOKEN_SECONDS = 30 * 24 * 3600;

function option(name: string): string {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? process.argv[index + 1] : undefined;
  if (value === undefined) throw new Error(`missing --${name}`);
  return value;
}

async function applyAll(
  api: RawClient,
  objects: KubernetesObject[],
): Promise<void> {
  for (const object of objects) {
    await api.apply(object);
  }
}

type WithConditions = KubernetesObject & {
  status?: { conditions?: Array<{ type: string; status: string }> };
};

function hasCondition(object: WithConditions, type: string): boolean {
  return (
    object.status?.conditions?.some(
      c => c.type === type && c.status === 'True',
    ) ?? false
  );
}

async function waitUntil(
  what: string,
  seconds: number,
  check: () => Promise<boolean>,
): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
    } catch (error) {
      lastError = error;
    }
    await new Promise(r => setTimeout(r, 300));
  }
  throw new Error(
    `Local cluster: ${what} not done after ${seconds} s${
      lastError ? ` (${String(lastError)})` : ''
    }`,
  );
}

async function controlPlane(api: RawClient): Promise<void> {
  const kueue = kueueModuleObjects({
    webhookUrl: option('kueue-webhook'),
    caBundle: readFileSync(option('ca')).toString('base64'),
  });
  const crds = [...kueue.crds, ...pinnedCrds()];
  await applyAll(api, [
    {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'kueue-system' },
    },
    ...crds,
  ]);
  await waitUntil('CRDs established', 60, async () => {
    for (const crd of crds) {
      if (!hasCondition(await api.read<WithConditions>(crd), 'Established')) {
        return false;
      }
    }
    return true;
  });
  await applyAll(api, kueue.webhookConfigurations);
  const storageClassFile = option('storage-class');
  if (storageClassFile) {
    await applyAll(api, [parse(readFileSync(storageClassFile, 'utf8'))]);
  }
}

/** The platform of `--platform-config` (comma-separated app-config files). */
async function loadPlatform() {
  const paths = option('platform-config').split(',');
  const { appConfigs } = await loadConfig({
    configRoot: dirname(resolve(paths[0])),
    configTargets: paths.map(path => ({ path: resolve(path) })),
  });
  return readPlatformConfig(ConfigReader.fromConfigs(appConfigs));
}

async function nodes(api: RawClient): Promise<void> {
  const platform = await loadPlatform();
  const gpuNodes = simulatedGpuNodes(platform);
  for (const node of gpuNodes) {
    // A Node keeps the status it is created with; on later applies its status is a subresource of its own.
    await api.apply(node);
    await api.apply(node, 'status');
  }
  const slices = simulatedResourceSlices(platform);
  if (slices.length > 0) {
    // A dynamic MIG pool's claims name a DeviceClass of the platform's own, which the driver's chart does not define.
    const dynamic = platform.pools.some(
      p => p.sharing.type === 'mig' && p.sharing.partitioning === 'dynamic',
    );
    await applyAll(api, [
      ...nvidiaDeviceClasses(),
      ...(dynamic ? [dynamicMigDeviceClass()] : []),
      ...slices,
    ]);
  }
  await waitUntil(`${gpuNodes.length} GPU nodes Ready`, 60, async () => {
    for (const node of gpuNodes) {
      if (!hasCondition(await api.read<WithConditions>(node), 'Ready')) {
        return false;
      }
    }
    return true;
  });
  process.stdout.write(
    `${gpuNodes.length} simulated GPU nodes: ${platform.pools
      .map(p => `${p.name} x${p.maxNodes}`)
      .join(', ')}\n`,
  );
}

async function access(api: RawClient): Promise<void> {
  const account = {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { ...BACKSTAGE_ACCOUNT },
  };
  const binding: KubernetesObject & Record<string, unknown> = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'backstage-view' },
    roleRef: {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: 'view',
    },
    subjects: [{ kind: 'ServiceAccount', ...BACKSTAGE_ACCOUNT }],
  };
  await applyAll(api, [account, binding]);
  const request = (await api.create(account, 'token', {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: { expirationSeconds: TOKEN_SECONDS },
  })) as { status?: { token?: string } };
  const token = request.status?.token;
  if (!token) throw new Error('TokenRequest returned no token');
  writeFileSync(option('token-file'), token, { mode: 0o600 });
  process.stdout.write(
    `Token of ServiceAccount ${BACKSTAGE_ACCOUNT.namespace}/${
      BACKSTAGE_ACCOUNT.name
    } (ClusterRole view) in ${option('token-file')}\n`,
  );
}

async function namespaces(api: RawClient): Promise<void> {
  const platform = await loadPlatform();
  const names = platform.teams.flatMap(team => team.namespaces);
  await applyAll(
    api,
    names.map(name => ({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name },
    })),
  );
  process.stdout.write(`Team namespaces: ${names.join(', ')}\n`);
}

/**
 * Prints the `resources` section of Kueue's Configuration for the platform: the resource transformations that weigh
 * each MIG request in GPU units (gpu-node `renderResourceTransformations`; none when no MIG pool counts in units), and
 * the `deviceClassMappings` of every DRA pool the product can render (gpu-node `NVIDIA_DEVICE_CLASS_MAPPINGS`), so a
 * suite can bring DRA pools of its own: Kueue reads its Configuration once, at start. The whole-GPU mapping charges
 * `nvidia.com/gpu`, the name the device plugin's pools count in, so it changes nothing for them. Also the dynamic MIG
 * mapping (gpu-node `DYNAMIC_MIG_DEVICE_CLASS_MAPPING`: a class of its own charged through the driver's
 * `multiprocessors` counter), which changes nothing for the other classes.
 */
async function kueueResources(): Promise<void> {
  const transformations = renderResourceTransformations(await loadPlatform());
  process.stdout.write(
    stringify({
      resources: {
        ...(transformations.length > 0 ? { transformations } : {}),
        deviceClassMappings: [
          ...NVIDIA_DEVICE_CLASS_MAPPINGS,
          DYNAMIC_MIG_DEVICE_CLASS_MAPPING,
        ],
      },
    }),
  );
}

async function main() {
  const phase = process.argv[2];
  if (phase === 'kueue-resources') {
    await kueueResources();
    return;
  }
  const kc = new KubeConfig();
  kc.loadFromFile(option('kubeconfig'));
  const api = new RawClient(kc, FIELD_MANAGER);
  if (phase === 'control-plane') await controlPlane(api);
  else if (phase === 'nodes') await nodes(api);
  else if (phase === 'access') await access(api);
  else if (phase === 'namespaces') await namespaces(api);
  else throw new Error(`unknown phase '${phase}'`);
}

main().catch(error => {
  process.stderr.write(
    `${error?.body ? JSON.stringify(error.body) : ''}\n${
      error?.stack ?? error
    }\n`,
  );
  process.exit(1);
});
