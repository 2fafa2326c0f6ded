/**
 * The API-side set-up of the local control plane, run by `scripts/cluster up` (not part of the product):
 *
 * - `control-plane` (API server up, controllers not yet started): the `kueue-system` namespace, every Kueue CRD from
 *   the Kueue module pinned in cluster/go.mod (conversion webhooks pointed at the local Kueue), Kueue's mutating and
 *   validating webhook configurations from the same module (the webhooks of the integrations it runs, served on
 *   loopback), KEDA's CRDs from the KEDA module pinned in cluster/crds/go.mod, and kwok's default storage class.
 * - `nodes` (controllers running): one kwok Node per node of each pool of the platform config, advertising what the
 *   NVIDIA device plugin would for the pool's sharing config, then waits until the nodes are Ready and Kueue's
 *   webhooks answer.
 */
import { loadConfig } from '@backstage/config-loader';
import { ConfigReader } from '@backstage/config';
import { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { readPlatformConfig } from '@internal/backstage-plugin-gpu-common';
import { simulatedGpuNodes } from '@internal/backstage-plugin-gpu-node';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parse } from 'yaml';
import { goModuleDir } from './goModuleDir';
import { kueueModuleObjects } from './kueueModuleObjects';
import { RawClient } from './rawClient';

const FIELD_MANAGER = 'gpu-local-cluster';

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

/** KEDA's CRDs (ScaledObject and what it refers to), from the KEDA module pinned in cluster/crds/go.mod. */
function kedaCrds(): KubernetesObject[] {
  const dir = join(
    goModuleDir('github.com/kedacore/keda/v2', 'cluster/crds'),
    'config/crd/bases',
  );
  return [
    'keda.sh_scaledobjects.yaml',
    'keda.sh_scaledjobs.yaml',
    'keda.sh_triggerauthentications.yaml',
    'keda.sh_clustertriggerauthentications.yaml',
  ].map(file => parse(readFileSync(join(dir, file), 'utf8')));
}

async function controlPlane(api: RawClient): Promise<void> {
  const kueue = kueueModuleObjects({
    webhookUrl: option('kueue-webhook'),
    caBundle: readFileSync(option('ca')).toString('base64'),
  });
  await applyAll(api, [
    {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'kueue-system' },
    },
    ...kueue.crds,
    ...kedaCrds(),
  ]);
  await waitUntil('CRDs established', 60, async () => {
    for (const crd of [...kueue.crds, ...kedaCrds()]) {
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

async function nodes(api: RawClient): Promise<void> {
  const paths = option('platform-config').split(',');
  const { appConfigs } = await loadConfig({
    configRoot: dirname(resolve(paths[0])),
    configTargets: paths.map(path => ({ path: resolve(path) })),
  });
  const platform = readPlatformConfig(ConfigReader.fromConfigs(appConfigs));
  const gpuNodes = simulatedGpuNodes(platform);
  for (const node of gpuNodes) {
    // A Node keeps the status it is created with; on later applies its status is a subresource of its own.
    await api.apply(node);
    await api.apply(node, 'status');
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

async function main() {
  const phase = process.argv[2];
  const kc = new KubeConfig();
  kc.loadFromFile(option('kubeconfig'));
  const api = new RawClient(kc, FIELD_MANAGER);
  if (phase === 'control-plane') await controlPlane(api);
  else if (phase === 'nodes') await nodes(api);
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
