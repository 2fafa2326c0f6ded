import { delay, http, HttpResponse, PathParams } from 'msw';

/** One request the fake API server received. */
export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. `/apis/apps/v1/namespaces/ml/deployments/x?fieldManager=backstage-gpu&force=true`. */
  path: string;
  contentType?: string;
  authorization?: string;
  body?: unknown;
}

/** A failure to inject into the next request that matches. */
export interface Fault {
  method: string;
  path: string;
  /** An HTTP status, `timeout` (no answer in time) or `network` (connection reset). */
  failure: number | 'timeout' | 'network';
  /** How many matching requests fail; 1 when omitted. */
  times?: number;
  message?: string;
  retryAfterSeconds?: number;
}

interface ResourceInfo {
  name: string;
  kind: string;
  namespaced: boolean;
}

/** What API discovery of this fake returns, per group version. */
const DISCOVERY: Record<string, ResourceInfo[]> = {
  v1: [
    { name: 'configmaps', kind: 'ConfigMap', namespaced: true },
    { name: 'namespaces', kind: 'Namespace', namespaced: false },
    {
      name: 'persistentvolumeclaims',
      kind: 'PersistentVolumeClaim',
      namespaced: true,
    },
    { name: 'services', kind: 'Service', namespaced: true },
  ],
  'apps/v1': [{ name: 'deployments', kind: 'Deployment', namespaced: true }],
  'policy/v1': [
    {
      name: 'poddisruptionbudgets',
      kind: 'PodDisruptionBudget',
      namespaced: true,
    },
  ],
  'kueue.x-k8s.io/v1beta2': [
    { name: 'clusterqueues', kind: 'ClusterQueue', namespaced: false },
    { name: 'cohorts', kind: 'Cohort', namespaced: false },
    { name: 'localqueues', kind: 'LocalQueue', namespaced: true },
    { name: 'resourceflavors', kind: 'ResourceFlavor', namespaced: false },
    {
      name: 'workloadpriorityclasses',
      kind: 'WorkloadPriorityClass',
      namespaced: false,
    },
  ],
};

/** Fields a real API server adds on create, so drift detection has to ignore them. */
function serverDefaults(kind: string): Record<string, unknown> {
  if (kind === 'Deployment') {
    return {
      spec: {
        progressDeadlineSeconds: 600,
        revisionHistoryLimit: 10,
        strategy: { type: 'RollingUpdate' },
      },
      status: { observedGeneration: 1, replicas: 1 },
    };
  }
  if (kind === 'Service') {
    return { spec: { clusterIP: '10.0.0.12', type: 'ClusterIP' } };
  }
  return {};
}

function deepMerge(base: unknown, patch: unknown): unknown {
  if (
    typeof base !== 'object' ||
    base === null ||
    Array.isArray(base) ||
    typeof patch !== 'object' ||
    patch === null ||
    Array.isArray(patch)
  ) {
    return patch;
  }
  const merged: Record<string, unknown> = { ...(base as object) };
  for (const [key, value] of Object.entries(patch)) {
    merged[key] = key in merged ? deepMerge(merged[key], value) : value;
  }
  return merged;
}

function status(code: number, reason: string, message: string) {
  return HttpResponse.json(
    {
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      message,
      reason,
      code,
    },
    { status: code },
  );
}

/**
 * An in-memory Kubernetes API server for msw: API discovery, server-side apply
 * (no-op applies keep the resourceVersion), get, list by label selector and delete,
 * with injectable faults. Requests it does not know get the 404 a real server sends.
 */
export function fakeKubernetesApi(baseUrl: string) {
  const requests: RecordedRequest[] = [];
  const faults: Fault[] = [];
  /** Applied configuration (what we sent) and live object, by resource path. */
  const objects = new Map<
    string,
    { applied: string; live: Record<string, any> }
  >();
  let resourceVersion = 100;

  function resourceOf(groupVersion: string, plural: string) {
    return DISCOVERY[groupVersion]?.find(r => r.name === plural);
  }

  async function record(request: Request) {
    const url = new URL(request.url);
    const text = await request.text();
    const entry: RecordedRequest = {
      method: request.method,
      path: `${url.pathname}${url.search}`,
      contentType: request.headers.get('content-type') ?? undefined,
      authorization: request.headers.get('authorization') ?? undefined,
      body: text ? JSON.parse(text) : undefined,
    };
    requests.push(entry);
    return entry;
  }

  async function injectFault(entry: RecordedRequest) {
    const index = faults.findIndex(
      f => f.method === entry.method && f.path === entry.path,
    );
    if (index < 0) {
      return undefined;
    }
    const fault = faults[index];
    fault.times = (fault.times ?? 1) - 1;
    if (fault.times <= 0) {
      faults.splice(index, 1);
    }
    if (fault.failure === 'timeout') {
      await delay(400);
      return HttpResponse.json({}, { status: 200 });
    }
    if (fault.failure === 'network') {
      return HttpResponse.error();
    }
    const response = status(
      fault.failure,
      'InjectedFault',
      fault.message ?? `injected ${fault.failure}`,
    );
    if (fault.retryAfterSeconds !== undefined) {
      response.headers.set('retry-after', String(fault.retryAfterSeconds));
    }
    return response;
  }

  /** Splits `/api/v1/...` or `/apis/<group>/<version>/...` into its parts. */
  function parse(params: PathParams) {
    const groupVersion = params.group
      ? `${params.group}/${params.version}`
      : 'v1';
    const resource = resourceOf(groupVersion, String(params.resource));
    const namespace = params.namespace ? String(params.namespace) : undefined;
    return { groupVersion, resource, namespace, name: params.name as string };
  }

  const objectHandler = async ({
    request,
    params,
  }: {
    request: Request;
    params: PathParams;
  }) => {
    const entry = await record(request);
    const fault = await injectFault(entry);
    if (fault) {
      return fault;
    }
    const { groupVersion, resource, namespace, name } = parse(params);
    if (!resource || resource.namespaced !== Boolean(namespace)) {
      return status(
        404,
        'NotFound',
        'the server could not find the requested resource',
      );
    }
    const key = new URL(request.url).pathname;
    const notFound = () =>
      status(404, 'NotFound', `${resource.name} "${name}" not found`);

    if (request.method === 'PATCH') {
      if (entry.contentType !== 'application/apply-patch+yaml') {
        return status(
          415,
          'UnsupportedMediaType',
          `unsupported ${entry.contentType}`,
        );
      }
      const body = entry.body as Record<string, any>;
      if (
        body.apiVersion !== groupVersion ||
        body.kind !== resource.kind ||
        body.metadata?.name !== name
      ) {
        return status(400, 'BadRequest', 'object does not match the path');
      }
      const applied = JSON.stringify(body);
      const existing = objects.get(key);
      if (existing?.applied === applied) {
        return HttpResponse.json(existing.live);
      }
      resourceVersion += 1;
      const live = deepMerge(
        deepMerge(serverDefaults(resource.kind), existing?.live ?? {}),
        body,
      ) as Record<string, any>;
      live.metadata = {
        ...live.metadata,
        uid: `uid-${name}`,
        resourceVersion: String(resourceVersion),
        creationTimestamp: '2025-01-01T00:00:00Z',
      };
      objects.set(key, { applied, live });
      return HttpResponse.json(live, { status: existing ? 200 : 201 });
    }
    const existing = objects.get(key);
    if (!existing) {
      return notFound();
    }
    if (request.method === 'DELETE') {
      objects.delete(key);
      return HttpResponse.json({
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Success',
        details: { name, kind: resource.name },
      });
    }
    return HttpResponse.json(existing.live);
  };

  const listHandler = async ({
    request,
    params,
  }: {
    request: Request;
    params: PathParams;
  }) => {
    const entry = await record(request);
    const fault = await injectFault(entry);
    if (fault) {
      return fault;
    }
    const { groupVersion, resource, namespace } = parse(params);
    if (!resource) {
      return status(
        404,
        'NotFound',
        'the server could not find the requested resource',
      );
    }
    const selector =
      new URL(request.url).searchParams.get('labelSelector') ?? '';
    const wanted = selector
      .split(',')
      .filter(Boolean)
      .map(term => term.split('='));
    const items = [...objects.values()]
      .map(o => o.live)
      .filter(
        o =>
          o.kind === resource.kind &&
          (namespace === undefined || o.metadata.namespace === namespace) &&
          wanted.every(([k, v]) => o.metadata.labels?.[k] === v),
      )
      // A real list omits apiVersion and kind on its items.
      .map(({ apiVersion: _a, kind: _k, ...item }) => item);
    return HttpResponse.json({
      apiVersion: groupVersion,
      kind: `${resource.kind}List`,
      metadata: { resourceVersion: String(resourceVersion) },
      items,
    });
  };

  const discoveryHandler = async ({
    request,
    params,
  }: {
    request: Request;
    params: PathParams;
  }) => {
    const entry = await record(request);
    const fault = await injectFault(entry);
    if (fault) {
      return fault;
    }
    const groupVersion = params.group
      ? `${params.group}/${params.version}`
      : 'v1';
    const resources = DISCOVERY[groupVersion];
    if (!resources) {
      return status(
        404,
        'NotFound',
        'the server could not find the requested resource',
      );
    }
    return HttpResponse.json({
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion,
      resources: resources.map(r => ({
        name: r.name,
        singularName: r.kind.toLowerCase(),
        namespaced: r.namespaced,
        kind: r.kind,
        verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
      })),
    });
  };

  const handlers = [
    http.get(`${baseUrl}/api/:version`, discoveryHandler),
    http.get(`${baseUrl}/apis/:group/:version`, discoveryHandler),
    ...['get', 'patch', 'delete'].flatMap(method => {
      const verb = method as 'get' | 'patch' | 'delete';
      return [
        http[verb](
          `${baseUrl}/api/:version/namespaces/:namespace/:resource/:name`,
          objectHandler,
        ),
        http[verb](
          `${baseUrl}/apis/:group/:version/namespaces/:namespace/:resource/:name`,
          objectHandler,
        ),
        http[verb](
          `${baseUrl}/apis/:group/:version/:resource/:name`,
          objectHandler,
        ),
      ];
    }),
    http.get(
      `${baseUrl}/api/:version/namespaces/:namespace/:resource`,
      listHandler,
    ),
    http.get(
      `${baseUrl}/apis/:group/:version/namespaces/:namespace/:resource`,
      listHandler,
    ),
    http.get(`${baseUrl}/apis/:group/:version/:resource`, listHandler),
  ];

  return {
    handlers,
    requests,
    faults,
    /** The live object at a resource path, to inspect or tamper with. */
    live(path: string) {
      return objects.get(path)?.live;
    },
    remove(path: string) {
      objects.delete(path);
    },
  };
}
