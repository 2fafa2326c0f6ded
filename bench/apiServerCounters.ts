/**
 * The API server's request counters (`apiserver_request_total` from its /metrics, read with the admin kubeconfig)
 * and the resource names they use, for the benchmarks that count what a client sent to a real API server.
 */
import { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { request as httpsRequest, RequestOptions } from 'node:https';
import { metricSamples } from '../plugins/gpu-node/src/testUtils/metricSamples';

/** Verbs that change something (APPLY is a server-side apply PATCH). */
export const MUTATING = new Set([
  'APPLY',
  'PATCH',
  'PUT',
  'POST',
  'DELETE',
  'DELETECOLLECTION',
]);

export interface CounterRow {
  verb: string;
  group: string;
  resource: string;
  subresource: string;
  code: string;
  count: number;
}

export type Counters = Map<string, CounterRow>;

export async function httpsGet(kc: KubeConfig, path: string): Promise<string> {
  const options: RequestOptions = {};
  await kc.applyToHTTPSOptions(options);
  const url = new URL(path, kc.getCurrentCluster()!.server);
  return new Promise((ok, fail) => {
    const req = httpsRequest(url, { ...options, method: 'GET' }, res => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', chunk => (body += chunk));
      res.on('end', () =>
        res.statusCode === 200
          ? ok(body)
          : fail(new Error(`GET ${path}: ${res.statusCode} ${body}`)),
      );
    });
    req.on('error', fail);
    req.end();
  });
}

/** `apiserver_request_total` of the API server, by verb, group, resource, subresource and code. */
export async function readCounters(kc: KubeConfig): Promise<Counters> {
  const text = await httpsGet(kc, '/metrics');
  const counters: Counters = new Map();
  for (const { labels, value } of metricSamples(
    text,
    'apiserver_request_total',
  )) {
    const row: CounterRow = {
      verb: labels.verb,
      group: labels.group ?? '',
      resource: labels.resource ?? '',
      subresource: labels.subresource ?? '',
      code: labels.code,
      count: value,
    };
    const key = [row.verb, row.group, row.resource, row.subresource, row.code]
      .map(String)
      .join('|');
    const existing = counters.get(key);
    if (existing) existing.count += row.count;
    else counters.set(key, row);
  }
  return counters;
}

export function diffCounters(before: Counters, after: Counters): CounterRow[] {
  const rows: CounterRow[] = [];
  for (const [key, row] of after) {
    const delta = row.count - (before.get(key)?.count ?? 0);
    if (delta > 0) rows.push({ ...row, count: delta });
  }
  return rows.sort(
    (a, b) =>
      `${a.group}/${a.resource}/${a.subresource}/${a.verb}`.localeCompare(
        `${b.group}/${b.resource}/${b.subresource}/${b.verb}`,
      ) || a.code.localeCompare(b.code),
  );
}

export function resourceName(row: {
  group: string;
  resource: string;
  subresource: string;
}): string {
  return `${row.group ? `${row.group}/` : ''}${row.resource}${
    row.subresource ? `/${row.subresource}` : ''
  }`;
}

/** Mutating rows, summed over codes: `{ verb, resource, count }`. */
export function mutating(rows: CounterRow[]) {
  const summed = new Map<
    string,
    { verb: string; resource: string; count: number }
  >();
  for (const row of rows) {
    if (!MUTATING.has(row.verb)) continue;
    const resource = resourceName(row);
    const key = `${row.verb} ${resource}`;
    const entry = summed.get(key) ?? { verb: row.verb, resource, count: 0 };
    entry.count += row.count;
    summed.set(key, entry);
  }
  return [...summed.values()];
}
/** The resource (`group/plural`, as the metrics name it) of every kind among the objects, from API discovery. */
export async function resourcesOf(
  kc: KubeConfig,
  objects: KubernetesObject[],
): Promise<Map<string, string>> {
  const resources = new Map<string, string>();
  const discovered = new Map<string, Array<{ name: string; kind: string }>>();
  for (const object of objects) {
    const key = kindOf(object);
    if (resources.has(key)) continue;
    const apiVersion = object.apiVersion!;
    if (!discovered.has(apiVersion)) {
      const path = apiVersion.includes('/')
        ? `/apis/${apiVersion}`
        : `/api/${apiVersion}`;
      discovered.set(
        apiVersion,
        JSON.parse(await httpsGet(kc, path)).resources,
      );
    }
    const resource = discovered
      .get(apiVersion)!
      .find(r => r.kind === object.kind && !r.name.includes('/'));
    if (!resource) throw new Error(`the API server does not serve ${key}`);
    const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
    resources.set(key, `${group ? `${group}/` : ''}${resource.name}`);
  }
  return resources;
}

export function kindOf(object: KubernetesObject) {
  return `${object.apiVersion}/${object.kind}`;
}
