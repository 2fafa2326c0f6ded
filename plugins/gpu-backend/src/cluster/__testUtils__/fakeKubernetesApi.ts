import { randomUUID } from 'node:crypto';
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

/** A request held until the test releases it (see `hold`). */
interface Hold {
  method: string;
  path: string;
  reached: () => void;
  released: Promise<void>;
}

/**
 * Field selectors the API server supports per kind (`metadata.name` and `metadata.namespace` for every kind,
 * custom resources included); any other field is a 400, as on a real server.
 */
const FIELD_SELECTORS: Record<string, Record<string, (o: any) => unknown>> = {
  Event: {
    type: o => o.type,
    reason: o => o.reason,
    'involvedObject.kind': o => o.involvedObject?.kind,
    'involvedObject.name': o => o.involvedObject?.name,
    'involvedObject.namespace': o => o.involvedObject?.namespace,
    'involvedObject.uid': o => o.involvedObject?.uid,
    'involvedObject.apiVersion': o => o.involvedObject?.apiVersion,
    'involvedObject.fieldPath': o => o.involvedObject?.fieldPath,
    'involvedObject.resourceVersion': o => o.involvedObject?.resourceVersion,
    reportingComponent: o => o.reportingComponent,
    source: o => o.source?.component,
  },
  Pod: {
    'spec.nodeName': o => o.spec?.nodeName ?? '',
    'spec.restartPolicy': o => o.spec?.restartPolicy,
    'spec.schedulerName': o => o.spec?.schedulerName,
    'spec.serviceAccountName': o => o.spec?.serviceAccountName,
    'status.phase': o => o.status?.phase,
    'status.podIP': o => o.status?.podIP ?? '',
    'status.nominatedNodeName': o => o.status?.nominatedNodeName ?? '',
  },
};

/** A parsed term of a label or field selector. */
type SelectorTerm =
  | { key: string; op: '=' | '!='; value: string }
  | { key: string; op: 'in' | 'notin'; values: string[] }
  | { key: string; op: 'exists' | '!exists' };

/** Splits a selector at the commas outside `( )`. */
function splitSelector(selector: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of selector) {
    if (char === '(') depth += 1;
    if (char === ')') depth -= 1;
    if (char === ',' && depth === 0) {
      terms.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  terms.push(current);
  return terms.map(t => t.trim()).filter(Boolean);
}

/** Parses a label selector as the API server does (`k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`). */
export function parseLabelSelector(selector: string): SelectorTerm[] {
  return splitSelector(selector).map(term => {
    const set = /^(\S+)\s+(in|notin)\s+\((.*)\)$/.exec(term);
    if (set) {
      return {
        key: set[1],
        op: set[2] as 'in' | 'notin',
        values: set[3]
          .split(',')
          .map(v => v.trim())
          .filter(Boolean),
      };
    }
    const equality = /^([^!=\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(term);
    if (equality) {
      return {
        key: equality[1],
        op: equality[2] === '!=' ? '!=' : '=',
        value: equality[3],
      };
    }
    if (/^![^\s=!]+$/.test(term)) {
      return { key: term.slice(1), op: '!exists' };
    }
    if (/^[^\s=!()]+$/.test(term)) {
      return { key: term, op: 'exists' };
    }
    throw new Error(`unable to parse requirement: ${term}`);
  });
}

function matches(terms: SelectorTerm[], get: (key: string) => unknown) {
  return terms.every(term => {
    const value = get(term.key);
    switch (term.op) {
      case '=':
        return value !== undefined && String(value) === term.value;
      case '!=':
        return value === undefined || String(value) !== term.value;
      case 'in':
        return value !== undefined && term.values.includes(String(value));
      case 'notin':
        return value === undefined || !term.values.includes(String(value));
      case 'exists':
        return value !== undefined;
      default:
        return value === undefined;
    }
  });
}

/** What API discovery of this fake returns, per group version. */
const DISCOVERY: Record<string, ResourceInfo[]> = {
  v1: [
    { name: 'configmaps', kind: 'ConfigMap', namespaced: true },
    { name: 'events', kind: 'Event', namespaced: true },
    { name: 'namespaces', kind: 'Namespace', namespaced: false },
    { name: 'nodes', kind: 'Node', namespaced: false },
    {
      name: 'persistentvolumeclaims',
      kind: 'PersistentVolumeClaim',
      namespaced: true,
    },
    { name: 'pods', kind: 'Pod', namespaced: true },
    { name: 'services', kind: 'Service', namespaced: true },
  ],
  'apps/v1': [
    { name: 'deployments', kind: 'Deployment', namespaced: true },
    { name: 'replicasets', kind: 'ReplicaSet', namespaced: true },
  ],
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
    { name: 'workloads', kind: 'Workload', namespaced: true },
  ],
  'karpenter.sh/v1': [
    { name: 'nodepools', kind: 'NodePool', namespaced: false },
  ],
  'monitoring.coreos.com/v1': [
    { name: 'prometheusrules', kind: 'PrometheusRule', namespaced: true },
  ],
};

/** Group versions of built-in kinds; the others are custom resources (Kueue's, Karpenter's, the Prometheus operator's). */
const BUILT_IN = new Set(['v1', 'apps/v1', 'policy/v1']);

/** Built-in kinds without `metadata.generation` (custom resources always have one). */
const WITHOUT_GENERATION = new Set([
  'ConfigMap',
  'Event',
  'Namespace',
  'Node',
  'PersistentVolumeClaim',
  'Service',
]);

function hasGeneration(kind: string) {
  return !WITHOUT_GENERATION.has(kind);
}

/**
 * Fields a real API server adds on create (defaults, admission), so drift detection has to ignore them, as
 * fakeApiContract.cluster.test.ts checks them against a real server: the spec fields it defaults and the `status` a
 * built-in kind is created with (empty or initial; controllers, here the test with `put`, write the rest). Custom
 * resources (Kueue's) are created without a status. Nested defaults (pod template, container fields) are not
 * modelled.
 */
function serverDefaults(kind: string): Record<string, unknown> {
  if (kind === 'Deployment') {
    return {
      spec: {
        progressDeadlineSeconds: 600,
        revisionHistoryLimit: 10,
        strategy: {
          type: 'RollingUpdate',
          rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' },
        },
      },
      status: {},
    };
  }
  if (kind === 'Service') {
    return {
      spec: {
        clusterIP: '10.96.0.12',
        clusterIPs: ['10.96.0.12'],
        internalTrafficPolicy: 'Cluster',
        ipFamilies: ['IPv4'],
        ipFamilyPolicy: 'SingleStack',
        sessionAffinity: 'None',
        type: 'ClusterIP',
      },
      status: { loadBalancer: {} },
    };
  }
  if (kind === 'PersistentVolumeClaim') {
    return {
      // The StorageObjectInUseProtection admission plugin's finalizer.
      metadata: { finalizers: ['kubernetes.io/pvc-protection'] },
      // The DefaultStorageClass admission plugin sets the cluster's default class (the local cluster's is
      // kwok-volume).
      spec: { storageClassName: 'standard', volumeMode: 'Filesystem' },
      status: { phase: 'Pending' },
    };
  }
  if (kind === 'Event') {
    return {
      eventTime: null,
      firstTimestamp: null,
      lastTimestamp: null,
      reportingComponent: '',
      reportingInstance: '',
    };
  }
  if (kind === 'LocalQueue') {
    return { spec: { stopPolicy: 'None' } };
  }
  return {};
}

/**
 * A sketch of the `fieldsV1` of a server-side apply: the applied maps field by field (`f:<key>`), lists as a whole
 * (a real server keys list items by their schema's list keys).
 */
function fieldsOf(applied: unknown): Record<string, unknown> {
  if (
    typeof applied !== 'object' ||
    applied === null ||
    Array.isArray(applied)
  ) {
    return {};
  }
  return Object.fromEntries(
    Object.entries(applied).map(([key, value]) => [
      `f:${key}`,
      fieldsOf(value),
    ]),
  );
}

function appliedFields(body: Record<string, any>): Record<string, unknown> {
  const { apiVersion: _a, kind: _k, metadata = {}, ...rest } = body;
  const { name: _n, namespace: _ns, ...ownMetadata } = metadata;
  return fieldsOf(
    Object.keys(ownMetadata).length ? { metadata: ownMetadata, ...rest } : rest,
  );
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
 * (no-op applies keep the resourceVersion; `metadata.generation`, on the kinds that have one, starts at 1 and grows
 * when `spec` changes; `managedFields` get the field manager's Apply entry), get,
 * list by label selector (equality and set-based) and field selector (the fields the real server supports per
 * kind, else 400), paged with `limit` and `continue`, and delete, with injectable faults and held requests.
 * Requests it does not know get the 404 a real server sends. Controllers' work (Deployment status, pods,
 * ReplicaSets, Kueue Workloads, events) is written by the test with `put`. fakeApiContract.cluster.test.ts makes
 * the same calls against it and a real API server and compares the answers. `options.notServed` lists group
 * versions it does not serve, as a cluster without their CRDs (e.g. `karpenter.sh/v1`): discovery and every request
 * under them answer 404.
 */
export function fakeKubernetesApi(
  baseUrl: string,
  options: { notServed?: string[] } = {},
) {
  const notServed = new Set(options.notServed ?? []);
  const discovery = (groupVersion: string) =>
    notServed.has(groupVersion) ? undefined : DISCOVERY[groupVersion];
  const requests: RecordedRequest[] = [];
  const faults: Fault[] = [];
  const holds: Hold[] = [];
  /** Applied configuration (what we sent) and live object, by resource path. */
  const objects = new Map<
    string,
    { applied: string; live: Record<string, any> }
  >();
  let resourceVersion = 100;

  function resourceOf(groupVersion: string, plural: string) {
    return discovery(groupVersion)?.find(r => r.name === plural);
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
    const held = holds.findIndex(
      h => h.method === entry.method && h.path === entry.path,
    );
    if (held >= 0) {
      const [hold] = holds.splice(held, 1);
      hold.reached();
      await hold.released;
    }
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
    const url = new URL(request.url);
    const key = url.pathname;
    // A real server names the resource with its group: `deployments.apps "x" not found`.
    const group = groupVersion.includes('/') ? groupVersion.split('/')[0] : '';
    const notFound = () =>
      status(
        404,
        'NotFound',
        `${resource.name}${group ? `.${group}` : ''} "${name}" not found`,
      );

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
      // A no-op apply: the same configuration, and the live object still holds it (nobody edited those fields).
      if (
        existing?.applied === applied &&
        JSON.stringify(deepMerge(existing.live, body)) ===
          JSON.stringify(existing.live)
      ) {
        return HttpResponse.json(existing.live);
      }
      resourceVersion += 1;
      const live = deepMerge(
        deepMerge(serverDefaults(resource.kind), existing?.live ?? {}),
        body,
      ) as Record<string, any>;
      const generation = existing?.live.metadata?.generation ?? 0;
      const specChanged =
        !existing ||
        JSON.stringify(existing.live.spec) !== JSON.stringify(live.spec);
      const manager = url.searchParams.get('fieldManager') ?? '';
      live.metadata = {
        ...live.metadata,
        uid: existing?.live.metadata?.uid ?? randomUUID(),
        resourceVersion: String(resourceVersion),
        ...(hasGeneration(resource.kind)
          ? { generation: specChanged ? generation + 1 : generation }
          : {}),
        creationTimestamp:
          existing?.live.metadata?.creationTimestamp ?? '2025-01-01T00:00:00Z',
        // This apply's entry replaces the manager's previous one; other managers' entries stay.
        managedFields: [
          ...(existing?.live.metadata?.managedFields ?? []).filter(
            (f: { manager?: string; operation?: string }) =>
              !(f.manager === manager && f.operation === 'Apply'),
          ),
          {
            manager,
            operation: 'Apply',
            apiVersion: groupVersion,
            time: '2025-01-01T00:00:00Z',
            fieldsType: 'FieldsV1',
            fieldsV1: appliedFields(body),
          },
        ],
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
    const query = new URL(request.url).searchParams;
    let labels: SelectorTerm[];
    let fields: SelectorTerm[];
    try {
      labels = parseLabelSelector(query.get('labelSelector') ?? '');
      fields = parseLabelSelector(query.get('fieldSelector') ?? '');
    } catch (error) {
      return status(400, 'BadRequest', (error as Error).message);
    }
    const fieldsOfKind = {
      'metadata.name': (o: any) => o.metadata?.name,
      'metadata.namespace': (o: any) => o.metadata?.namespace,
      ...FIELD_SELECTORS[resource.kind],
    } as Record<string, (o: any) => unknown>;
    const unsupported = fields.find(f => !(f.key in fieldsOfKind));
    if (unsupported) {
      // The real server's message for a field it cannot select on.
      return status(
        400,
        'BadRequest',
        `field label not supported: ${unsupported.key}`,
      );
    }
    const all = [...objects.entries()]
      .filter(
        ([, o]) =>
          o.live.kind === resource.kind &&
          (namespace === undefined || o.live.metadata.namespace === namespace),
      )
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([, o]) => o.live)
      .filter(
        o =>
          matches(labels, key => o.metadata.labels?.[key]) &&
          matches(fields, key => fieldsOfKind[key](o)),
      );
    const limit = Number(query.get('limit') ?? 0);
    const offset = query.get('continue')
      ? Number(Buffer.from(query.get('continue')!, 'base64url').toString())
      : 0;
    const page = limit > 0 ? all.slice(offset, offset + limit) : all;
    const next = limit > 0 && offset + limit < all.length;
    // A real list of a built-in kind omits apiVersion and kind on its items; one of custom resources keeps them.
    const items = BUILT_IN.has(groupVersion)
      ? page.map(({ apiVersion: _a, kind: _k, ...item }) => item)
      : page;
    // A list filtered by a selector has no remainingItemCount.
    const filtered = labels.length > 0 || fields.length > 0;
    return HttpResponse.json({
      apiVersion: groupVersion,
      kind: `${resource.kind}List`,
      metadata: {
        resourceVersion: String(resourceVersion),
        ...(next
          ? {
              continue: Buffer.from(String(offset + limit)).toString(
                'base64url',
              ),
              ...(filtered
                ? {}
                : { remainingItemCount: all.length - offset - limit }),
            }
          : {}),
      },
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
    const resources = discovery(groupVersion);
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
        http[verb](`${baseUrl}/api/:version/:resource/:name`, objectHandler),
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
    http.get(`${baseUrl}/api/:version/:resource`, listHandler),
  ];

  /** The resource path of an object, e.g. `/apis/apps/v1/namespaces/ml/deployments/x`. */
  function pathOf(object: {
    apiVersion: string;
    kind: string;
    metadata: { name: string; namespace?: string };
  }): string {
    const resource = DISCOVERY[object.apiVersion]?.find(
      r => r.kind === object.kind,
    );
    if (!resource) {
      throw new Error(
        `The fake API serves no ${object.apiVersion} ${object.kind}`,
      );
    }
    const root =
      object.apiVersion === 'v1' ? '/api/v1' : `/apis/${object.apiVersion}`;
    const namespace = resource.namespaced
      ? `/namespaces/${object.metadata.namespace}`
      : '';
    return `${root}${namespace}/${resource.name}/${object.metadata.name}`;
  }

  return {
    handlers,
    requests,
    faults,
    pathOf,
    /** The live object at a resource path, to inspect or tamper with. */
    live(path: string) {
      return objects.get(path)?.live;
    },
    remove(path: string) {
      objects.delete(path);
    },
    /**
     * Stores an object as a controller would write it (a Deployment's status, a pod, a ReplicaSet, a Kueue Workload,
     * an event): over the live object at its path when there is one, each top-level field given replacing the live
     * one and metadata merged (so a whole `status` can be written on an applied Deployment), with a uid,
     * resourceVersion and creationTimestamp filled in when missing. Returns the live object.
     */
    put(object: {
      apiVersion: string;
      kind: string;
      metadata: { name: string; namespace?: string; [key: string]: unknown };
      [key: string]: unknown;
    }): Record<string, any> {
      const path = pathOf(object);
      const existing = objects.get(path);
      resourceVersion += 1;
      // Top-level fields replace the live ones (a controller writes a whole `status`); metadata merges.
      const live: Record<string, any> = {
        ...existing?.live,
        ...object,
        metadata: deepMerge(existing?.live.metadata ?? {}, object.metadata),
      };
      live.metadata = {
        ...live.metadata,
        uid: live.metadata.uid ?? randomUUID(),
        resourceVersion: String(resourceVersion),
        ...(hasGeneration(object.kind)
          ? { generation: live.metadata.generation ?? 1 }
          : {}),
        creationTimestamp:
          live.metadata.creationTimestamp ?? new Date().toISOString(),
      };
      objects.set(path, { applied: existing?.applied ?? '', live });
      return live;
    },
    /**
     * Holds the next request with this method and path (query included) until `release` is called; `reached`
     * resolves when it arrives.
     */
    hold(method: string, path: string) {
      let reached!: () => void;
      let release!: () => void;
      const arrived = new Promise<void>(resolve => {
        reached = resolve;
      });
      const released = new Promise<void>(resolve => {
        release = resolve;
      });
      holds.push({ method, path, reached, released });
      return { reached: arrived, release };
    },
  };
}
