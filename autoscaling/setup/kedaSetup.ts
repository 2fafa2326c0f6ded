/**
 * The API-side set-up of KEDA and its HTTP add-on run out of cluster by `scripts/keda` (not part of the product):
 *
 * - `up`: the `keda` namespace; every CRD KEDA's operator watches and the add-on's HTTPScaledObject, from the modules
 *   pinned in autoscaling/keda/go.mod and autoscaling/keda-http/go.mod; the Services the components are found by, as
 *   in-cluster installs name them: `keda-metrics-apiserver` (ExternalName `localhost`: the API server's aggregator
 *   resolves an ExternalName Service to that host and the APIService's port, which reaches the metrics API server on
 *   loopback; it checks the serving certificate for `keda-metrics-apiserver.keda.svc`), and the add-on's
 *   `keda-add-ons-http-interceptor-admin`, `keda-add-ons-http-interceptor-proxy` and
 *   `keda-add-ons-http-external-scaler` with EndpointSlices on `--endpoint-ip` (EndpointSlices refuse loopback
 *   addresses; the service network of serviceNetwork.ts takes that address to loopback); and the APIService
 *   `v1beta1.external.metrics.k8s.io` on the metrics API server, with the cluster's CA as its CA bundle.
 * - `wait`: until the APIService is Available (the metrics API server answers through the aggregator).
 * - `down`: deletes the APIService (an unavailable one fails API discovery for every client).
 */
import { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { RawKubernetesClient } from '@gpu-platform/backstage-plugin-gpu-node/testUtils';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { parse } from 'yaml';
import { RawClient } from '../../cluster/setup/rawClient';

const FIELD_MANAGER = 'gpu-local-keda';
const NAMESPACE = 'keda';
const API_SERVICE = 'v1beta1.external.metrics.k8s.io';

function option(name: string): string {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? process.argv[index + 1] : undefined;
  if (value === undefined) throw new Error(`missing --${name}`);
  return value;
}

/** The directory of a module pinned in one of autoscaling/'s Go modules. */
function moduleDir(module: string, pinnedIn: string): string {
  const cwd = resolve(__dirname, '..', pinnedIn);
  const result = spawnSync('go', ['mod', 'download', '-json', module], {
    cwd,
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    throw new Error(
      `Could not locate ${module} pinned in ${cwd}/go.mod: ${result.stderr}${result.stdout}`,
    );
  }
  return (JSON.parse(result.stdout) as { Dir: string }).Dir;
}

function crds(): KubernetesObject[] {
  const keda = join(
    moduleDir('github.com/kedacore/keda/v2', 'keda'),
    'config/crd/bases',
  );
  const http = join(
    moduleDir('github.com/kedacore/http-add-on', 'keda-http'),
    'config/crd/bases',
  );
  return [
    ...[
      'keda.sh_scaledobjects.yaml',
      'keda.sh_scaledjobs.yaml',
      'keda.sh_triggerauthentications.yaml',
      'keda.sh_clustertriggerauthentications.yaml',
      'eventing.keda.sh_cloudeventsources.yaml',
      'eventing.keda.sh_clustercloudeventsources.yaml',
    ].map(file => join(keda, file)),
    join(http, 'http.keda.sh_httpscaledobjects.yaml'),
  ].map(file => parse(readFileSync(file, 'utf8')));
}

/** A selector-less Service with one ready endpoint on the service network. */
function serviceWithEndpoint(
  name: string,
  port: number,
  ip: string,
): KubernetesObject[] {
  return [
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace: NAMESPACE },
      spec: { ports: [{ name: 'http', port, protocol: 'TCP' }] },
    } as KubernetesObject,
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        name,
        namespace: NAMESPACE,
        labels: {
          'kubernetes.io/service-name': name,
          'endpointslice.kubernetes.io/managed-by': 'scripts.keda.local',
        },
      },
      addressType: 'IPv4',
      endpoints: [{ addresses: [ip], conditions: { ready: true } }],
      ports: [{ name: 'http', port, protocol: 'TCP' }],
    } as KubernetesObject,
  ];
}

const apiService = {
  apiVersion: 'apiregistration.k8s.io/v1',
  kind: 'APIService',
  metadata: { name: API_SERVICE },
};

async function up(api: RawClient): Promise<void> {
  const definitions = crds();
  for (const object of [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } },
    ...definitions,
  ]) {
    await api.apply(object);
  }
  const ip = option('endpoint-ip');
  const objects: KubernetesObject[] = [
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'keda-metrics-apiserver', namespace: NAMESPACE },
      spec: {
        type: 'ExternalName',
        externalName: 'localhost',
        ports: [
          {
            name: 'https',
            port: Number(option('metrics-apiserver-port')),
            protocol: 'TCP',
          },
        ],
      },
    } as KubernetesObject,
    ...serviceWithEndpoint(
      'keda-add-ons-http-interceptor-admin',
      Number(option('interceptor-admin-port')),
      ip,
    ),
    ...serviceWithEndpoint(
      'keda-add-ons-http-interceptor-proxy',
      Number(option('interceptor-proxy-port')),
      ip,
    ),
    ...serviceWithEndpoint(
      'keda-add-ons-http-external-scaler',
      Number(option('scaler-port')),
      ip,
    ),
    {
      ...apiService,
      spec: {
        group: 'external.metrics.k8s.io',
        version: 'v1beta1',
        service: {
          name: 'keda-metrics-apiserver',
          namespace: NAMESPACE,
          port: Number(option('metrics-apiserver-port')),
        },
        caBundle: readFileSync(option('ca')).toString('base64'),
        groupPriorityMinimum: 100,
        versionPriority: 100,
      },
    } as KubernetesObject,
  ];
  for (const object of objects) {
    await api.apply(object);
  }
}

async function waitAvailable(api: RawClient): Promise<void> {
  const deadline = Date.now() + Number(option('seconds')) * 1000;
  let last = '';
  while (Date.now() < deadline) {
    const current = await api.read<
      KubernetesObject & {
        status?: {
          conditions?: Array<{
            type: string;
            status: string;
            message?: string;
          }>;
        };
      }
    >(apiService);
    const available = current.status?.conditions?.find(
      c => c.type === 'Available',
    );
    if (available?.status === 'True') return;
    last = available?.message ?? '';
    await new Promise(r => setTimeout(r, 500));
  }
  throw new Error(`APIService ${API_SERVICE} not Available: ${last}`);
}

async function down(kc: KubeConfig): Promise<void> {
  const raw = new RawKubernetesClient(kc);
  const response = await raw.request(
    'DELETE',
    await raw.objectPath(apiService),
  );
  if (response.status >= 300 && response.status !== 404) {
    throw new Error(
      `Deleting APIService ${API_SERVICE}: HTTP ${response.status}`,
    );
  }
}

async function main() {
  const phase = process.argv[2];
  const kc = new KubeConfig();
  kc.loadFromFile(option('kubeconfig'));
  const api = new RawClient(kc, FIELD_MANAGER);
  if (phase === 'up') await up(api);
  else if (phase === 'wait') await waitAvailable(api);
  else if (phase === 'down') await down(kc);
  else throw new Error(`unknown phase '${phase}'`);
}

main().catch(error => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
