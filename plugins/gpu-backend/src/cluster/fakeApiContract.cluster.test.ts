import {
  demoPlatformConfig,
  parsePlatform,
  ServiceRequest,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  renderServiceManifests,
  renderTeamManifests,
} from '@gpu-platform/backstage-plugin-gpu-node';
import { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { http, passthrough } from 'msw';
import { setupServer } from 'msw/node';
import {
  createNamespaces,
  describeOnLocalCluster,
  localClusterClients,
} from '@gpu-platform/backstage-plugin-gpu-backend/testUtils';
import { fakeKubernetesApi } from './__testUtils__/fakeKubernetesApi';
import { KubernetesRequestError } from './errors';
import { KubernetesClientFactory } from './KubernetesClientFactory';
import { KubernetesObjectClient, ObjectRef } from './types';

jest.setTimeout(60_000);

/**
 * The contract of the fake API server (fakeKubernetesApi) with the real one: the same calls through
 * KubernetesClientFactory against both, compared after dropping what the servers generate (uids, resourceVersions,
 * timestamps, allocated IPs, managedFields' field sets) and what controllers write later. What the fast tests rely on
 * is kept: status codes and messages of errors, fields present right after create (`status`, defaulted spec fields,
 * `generation`, finalizers), the fields we applied coming back as applied, list shapes and paging.
 */

const FAKE_URL = 'https://fake-contract.test:6443';
/** One namespace per run, the same on both servers, so names in answers compare as they are. */
const NAMESPACE = `contract-${Date.now().toString(36)}`;
const SERVICE_ID = '5c2e9f0a-1b3d-4e6f-8a9b-0c1d2e3f4a5b';
const OTHER_ID = '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b';
/** How long an unchanged re-apply is tried again while controllers still write the object. */
const REAPPLY_WINDOW_MS = 5_000;

const platform = parsePlatform({
  ...demoPlatformConfig,
  teams: demoPlatformConfig.teams.map(team =>
    team.name === 'ml-platform' ? { ...team, namespaces: [NAMESPACE] } : team,
  ),
});

const request: ServiceRequest = {
  name: 'contract',
  team: 'ml-platform',
  namespace: NAMESPACE,
  model: 'llama-3.2-3b',
  runtime: 'vllm',
  dtype: 'int4',
  maxModelLen: 2048,
  concurrency: 2,
  replicas: 1,
  environment: 'dev',
  tier: 'dedicated',
  pool: 'l4-ondemand',
};

const rendered = [
  ...renderTeamManifests(platform, 'ml-platform'),
  ...renderServiceManifests(
    platform,
    request,
    { tier: 'dedicated', pool: 'l4-ondemand', gpusPerReplica: 1 },
    { serviceId: SERVICE_ID },
  ),
];

function renderedOf(kind: string): KubernetesObject {
  const object = rendered.find(o => o.kind === kind);
  if (!object) throw new Error(`nothing rendered of kind ${kind}`);
  return object;
}

const deployment = renderedOf('Deployment');
const service = renderedOf('Service');
const claim = renderedOf('PersistentVolumeClaim');
const localQueue = renderedOf('LocalQueue');
const APPLIED = [claim, service, deployment, localQueue];

function refOf(object: KubernetesObject): ObjectRef {
  return {
    apiVersion: object.apiVersion!,
    kind: object.kind!,
    name: object.metadata!.name!,
    namespace: object.metadata!.namespace,
  };
}

const PAGED_LABELS = { 'gpu.backstage.io/contract': 'paging' };
const configMaps: KubernetesObject[] = ['a', 'b', 'c'].map(suffix => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name: `contract-${suffix}`,
    namespace: NAMESPACE,
    labels: PAGED_LABELS,
  },
  data: { key: suffix },
}));

function event(name: string, type: 'Warning' | 'Normal'): KubernetesObject {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: NAMESPACE },
    involvedObject: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'contract-a',
      namespace: NAMESPACE,
    },
    type,
    reason: type === 'Warning' ? 'ContractWarning' : 'ContractNormal',
    message: `a ${type} event of the contract`,
    source: { component: 'contract-test' },
  } as KubernetesObject;
}
const events = [
  event('contract.warning', 'Warning'),
  event('contract.normal', 'Normal'),
];

/** The outcome of one call: the answer, or the error as our client reports it. */
type Outcome =
  | { ok: unknown }
  | { error: { failure: string; statusCode?: number; message: string } };

async function outcome<T>(
  call: () => Promise<T>,
  normalise: (value: T) => unknown = v => v,
): Promise<Outcome> {
  try {
    const value = await call();
    return { ok: value === undefined ? 'done' : normalise(value) };
  } catch (error) {
    if (error instanceof KubernetesRequestError) {
      return {
        error: {
          failure: error.failure,
          statusCode: error.statusCode,
          message: error.message,
        },
      };
    }
    throw error;
  }
}

/** An error's message cut to what `pattern` matches of it. */
function gist(result: Outcome, pattern: RegExp): Outcome {
  if (!('error' in result)) return result;
  const match = pattern.exec(result.error.message);
  return {
    error: {
      ...result.error,
      message: match ? match[0] : result.error.message,
    },
  };
}

const sortedKeys = (o: unknown) =>
  o && typeof o === 'object' ? Object.keys(o).sort() : undefined;

/** The values of `live` at the paths of `applied` (lists element by element). */
function project(applied: unknown, live: unknown): unknown {
  if (Array.isArray(applied)) {
    return applied.map((a, i) =>
      project(a, Array.isArray(live) ? live[i] : undefined),
    );
  }
  if (applied && typeof applied === 'object') {
    return Object.fromEntries(
      Object.entries(applied).map(([key, value]) => [
        key,
        project(value, (live as Record<string, unknown> | undefined)?.[key]),
      ]),
    );
  }
  return live;
}

/** An object as the fast tests see it, without what a server generates. */
function normaliseObject(applied?: KubernetesObject) {
  return (live: KubernetesObject) => {
    const { metadata = {}, ...rest } = live as Record<string, any>;
    const { spec, status } = rest;
    return {
      keys: sortedKeys(live),
      metadataKeys: sortedKeys(metadata),
      name: metadata.name,
      namespace: metadata.namespace,
      labels: metadata.labels,
      annotations: metadata.annotations,
      generation: metadata.generation,
      finalizers: metadata.finalizers,
      managedFields: metadata.managedFields?.map((f: any) => ({
        manager: f.manager,
        operation: f.operation,
        apiVersion: f.apiVersion,
        fieldsType: f.fieldsType,
        subresource: f.subresource,
      })),
      specKeys: sortedKeys(spec),
      statusKeys: sortedKeys(status),
      applied: applied ? project(applied, live) : undefined,
    };
  };
}

interface List {
  items: KubernetesObject[];
  continueToken?: string;
}

/** Names in order, the fields items have, and whether there is a next page. */
function normaliseList(list: List) {
  return {
    names: list.items.map(o => o.metadata?.name),
    itemKeys: [...new Set(list.items.flatMap(o => Object.keys(o)))].sort(),
    continued: list.continueToken !== undefined,
  };
}

/** The same calls, in the same order, against one server; what came back, normalised, by step. */
async function runSequence(client: KubernetesObjectClient) {
  const steps: Record<string, Outcome> = {};
  for (const object of APPLIED) {
    steps[`apply ${object.kind}`] = await outcome(
      () => client.apply(object),
      normaliseObject(object),
    );
  }

  // Unchanged re-apply: the resourceVersion of the live object, before and after. On the real server controllers
  // still write (Deployment status, Kueue's LocalQueue status): try again while something else changed the object
  // in between, for a few seconds.
  for (const object of APPLIED) {
    steps[`re-apply ${object.kind} unchanged`] = await outcome(async () => {
      const deadline = Date.now() + REAPPLY_WINDOW_MS;
      for (;;) {
        const before = await client.read(refOf(object));
        const again = await client.apply(object);
        const after = await client.read(refOf(object));
        const [b, a, l] = [before, again, after].map(
          o => o.metadata?.resourceVersion,
        );
        const unchanged = b === a && a === l;
        if (unchanged || Date.now() > deadline) {
          return {
            resourceVersionUnchanged: unchanged,
            generation: again.metadata?.generation,
          };
        }
        await new Promise(resolve => setTimeout(resolve, 250));
      }
    });
  }

  // Changed applies: a new resourceVersion; the generation grows with the spec only.
  const changed = async (object: KubernetesObject) => {
    const before = await client.read(refOf(object));
    const after = await client.apply(object);
    return {
      resourceVersionChanged:
        after.metadata?.resourceVersion !== before.metadata?.resourceVersion,
      generation: after.metadata?.generation,
    };
  };
  const relabelled = structuredClone(deployment);
  relabelled.metadata!.labels = {
    ...relabelled.metadata!.labels,
    'gpu.backstage.io/contract': 'relabelled',
  };
  steps['apply Deployment with a changed label'] = await outcome(() =>
    changed(relabelled),
  );
  const rescaled = structuredClone(relabelled) as KubernetesObject & {
    spec: { replicas?: number };
  };
  rescaled.spec.replicas = 2;
  steps['apply Deployment with a changed spec'] = await outcome(() =>
    changed(rescaled),
  );

  steps['read Service'] = await outcome(
    () => client.read(refOf(service)),
    live => ({
      ...normaliseObject(service)(live),
      status: (live as { status?: unknown }).status,
    }),
  );
  steps['read missing Deployment'] = await outcome(() =>
    client.read({ ...refOf(deployment), name: 'missing' }),
  );
  steps['read missing LocalQueue'] = await outcome(() =>
    client.read({ ...refOf(localQueue), name: 'missing' }),
  );
  steps['read missing Service'] = await outcome(() =>
    client.read({ ...refOf(service), name: 'missing' }),
  );

  for (const kind of ['Deployment', 'Service', 'PersistentVolumeClaim']) {
    const object = renderedOf(kind);
    steps[`list ${kind} by label (equality)`] = await outcome(
      () =>
        client.list({
          apiVersion: object.apiVersion!,
          kind,
          namespace: NAMESPACE,
          labelSelector: `gpu.backstage.io/service-id=${SERVICE_ID}`,
        }),
      normaliseList,
    );
  }
  steps['list Deployment by label (set-based in)'] = await outcome(
    () =>
      client.list({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        namespace: NAMESPACE,
        labelSelector: `gpu.backstage.io/service-id in (${OTHER_ID},${SERVICE_ID})`,
      }),
    normaliseList,
  );
  steps['list Deployment by label (set-based in, no match)'] = await outcome(
    () =>
      client.list({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        namespace: NAMESPACE,
        labelSelector: `gpu.backstage.io/service-id in (${OTHER_ID})`,
      }),
    normaliseList,
  );
  steps['list LocalQueue in all namespaces by label'] = await outcome(
    () =>
      client.list({
        apiVersion: localQueue.apiVersion!,
        kind: 'LocalQueue',
        labelSelector: Object.entries(localQueue.metadata?.labels ?? {})
          .map(([k, v]) => `${k}=${v}`)
          .join(','),
      }),
    // Only this run's namespace; Kueue writes a LocalQueue's status soon after create, the fake has no controllers.
    list =>
      normaliseList({
        ...list,
        items: list.items
          .filter(o => o.metadata?.namespace === NAMESPACE)
          .map(({ status: _status, ...o }: any) => o),
      }),
  );

  for (const object of [...configMaps, ...events]) {
    steps[`apply ${object.kind} ${object.metadata!.name}`] = await outcome(
      () => client.apply(object),
      normaliseObject(object),
    );
  }
  steps['list Event type=Warning'] = await outcome(
    () =>
      client.list({
        apiVersion: 'v1',
        kind: 'Event',
        namespace: NAMESPACE,
        fieldSelector: 'type=Warning',
      }),
    // Controllers of the real server report on their own objects too: only ours (about contract-a) compare.
    list =>
      normaliseList({
        ...list,
        items: list.items.filter(
          o => (o as any).involvedObject?.name === 'contract-a',
        ),
      }),
  );
  steps['list Event by an unsupported field'] = await outcome(
    () =>
      client.list({
        apiVersion: 'v1',
        kind: 'Event',
        namespace: NAMESPACE,
        fieldSelector: 'spec.nodeName=kwok-l4-ondemand-0',
      }),
    normaliseList,
  );
  // The parser's words differ; the status and what failed compare.
  steps['list ConfigMap by a malformed label selector'] = gist(
    await outcome(
      () =>
        client.list({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          namespace: NAMESPACE,
          labelSelector: 'gpu.backstage.io/contract in paging',
        }),
      normaliseList,
    ),
    /^unable to parse requirement/,
  );

  const page = (continueToken?: string) =>
    client.list({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: NAMESPACE,
      labelSelector: 'gpu.backstage.io/contract=paging',
      limit: 2,
      continueToken,
    });
  let continueToken: string | undefined;
  steps['list ConfigMap limit 2, page 1'] = await outcome(page, list => {
    continueToken = list.continueToken;
    return normaliseList(list);
  });
  steps['list ConfigMap limit 2, page 2'] = await outcome(
    () => page(continueToken),
    normaliseList,
  );

  steps['delete Deployment'] = await outcome(() =>
    client.delete(refOf(deployment)),
  );
  steps['read deleted Deployment'] = await outcome(() =>
    client.read(refOf(deployment)),
  );
  steps['delete Deployment again'] = await outcome(() =>
    client.delete(refOf(deployment)),
  );
  steps['delete LocalQueue'] = await outcome(() =>
    client.delete(refOf(localQueue)),
  );
  steps['delete ConfigMap'] = await outcome(() =>
    client.delete(refOf(configMaps[0])),
  );
  steps['delete ConfigMap again'] = await outcome(() =>
    client.delete(refOf(configMaps[0])),
  );
  return steps;
}

describeOnLocalCluster(
  'the fake Kubernetes API answers the calls of KubernetesClientFactory as a real API server does',
  kubeconfig => {
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    const realUrl = kc.getCurrentCluster()!.server;
    const api = fakeKubernetesApi(FAKE_URL);
    // msw sees every request of this process: the fake's are answered, the real server's go through untouched.
    const server = setupServer(
      ...api.handlers,
      http.all(`${realUrl}/*`, () => passthrough()),
    );
    const clients = localClusterClients(kubeconfig);
    const factory = new KubernetesClientFactory({ requestTimeoutMs: 10_000 });
    let fake: Record<string, Outcome>;
    let real: Record<string, Outcome>;

    beforeAll(async () => {
      server.listen({ onUnhandledRequest: 'error' });
      await createNamespaces(clients, [NAMESPACE]);
      fake = await runSequence(
        factory.forCluster('fake', {
          type: 'serviceAccount',
          url: FAKE_URL,
          serviceAccountToken: 'token',
        }),
      );
      real = await runSequence(
        factory.forCluster('real', { type: 'kubeconfig', path: kubeconfig }),
      );
    });

    afterAll(async () => {
      server.close();
      // Without waiting for the namespace to go.
      await clients.core
        .deleteNamespace({ name: NAMESPACE })
        .catch(() => undefined);
    });

    // So that the comparison cannot pass by both servers failing alike.
    it('the real server answered the steps as they intend', () => {
      const ok = (step: string) => expect(real[step]).toHaveProperty('ok');
      const failed = (step: string, statusCode: number) =>
        expect(real[step]).toMatchObject({ error: { statusCode } });
      for (const kind of ['PersistentVolumeClaim', 'Service', 'Deployment']) {
        ok(`apply ${kind}`);
        expect(real[`apply ${kind}`]).toHaveProperty(
          'ok.keys',
          expect.arrayContaining(['status']),
        );
      }
      // A custom resource is created without one.
      expect(real['apply LocalQueue']).toHaveProperty(
        'ok.keys',
        expect.not.arrayContaining(['status']),
      );
      for (const object of APPLIED) {
        expect(real[`re-apply ${object.kind} unchanged`]).toHaveProperty(
          'ok.resourceVersionUnchanged',
          true,
        );
      }
      expect(real['apply Deployment with a changed label']).toEqual({
        ok: { resourceVersionChanged: true, generation: 1 },
      });
      expect(real['apply Deployment with a changed spec']).toEqual({
        ok: { resourceVersionChanged: true, generation: 2 },
      });
      ok('read Service');
      failed('read missing Deployment', 404);
      failed('read missing LocalQueue', 404);
      expect(real['list Deployment by label (set-based in)']).toHaveProperty(
        'ok.names',
        ['contract'],
      );
      expect(real['list Event type=Warning']).toHaveProperty('ok.names', [
        'contract.warning',
      ]);
      failed('list Event by an unsupported field', 400);
      failed('list ConfigMap by a malformed label selector', 400);
      expect(real['list ConfigMap limit 2, page 1']).toEqual({
        ok: {
          names: ['contract-a', 'contract-b'],
          itemKeys: ['data', 'metadata'],
          continued: true,
        },
      });
      expect(real['list ConfigMap limit 2, page 2']).toEqual({
        ok: {
          names: ['contract-c'],
          itemKeys: ['data', 'metadata'],
          continued: false,
        },
      });
      expect(real['delete Deployment']).toEqual({ ok: 'done' });
      failed('read deleted Deployment', 404);
      failed('delete Deployment again', 404);
      failed('delete ConfigMap again', 404);
    });

    it('answers every step as the real server does', () => {
      // One comparison of all steps, so a failure shows every step that differs, by name.
      expect(fake).toEqual(real);
    });
  },
);
