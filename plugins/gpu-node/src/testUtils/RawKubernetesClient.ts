import https from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import type { KubernetesObject } from '@kubernetes/client-node';

/**
 * An answer of the API server: its status code and body (parsed when it is JSON).
 *
 * @public
 */
export interface RawResponse {
  status: number;
  body: any;
}

interface Resource {
  name: string;
  namespaced: boolean;
}

/**
 * A minimal client of a real API server that sends objects exactly as given, for tests and the local cluster's
 * set-up. The JSON goes out as is, with no typed serialisation in between: `KubernetesObjectApi` of
 * `@kubernetes/client-node` runs known kinds through its models, which drops unknown fields (and keys such as
 * `x-kubernetes-int-or-string` of a CRD schema), hiding exactly what a server-side check must see. Resource paths come
 * from the server's discovery documents (`/api/v1`, `/apis/<group>/<version>`).
 *
 * @public
 */
export class RawKubernetesClient {
  private readonly discovery = new Map<
    string,
    Promise<Map<string, Resource>>
  >();

  constructor(private readonly kc: KubeConfig) {}

  static fromKubeconfig(file: string): RawKubernetesClient {
    const kc = new KubeConfig();
    kc.loadFromFile(file);
    return new RawKubernetesClient(kc);
  }

  /**
   * Server-side apply (forced) of the object or one of its subresources; `dryRun` runs admission without storing,
   * `strict` rejects unknown fields.
   */
  async apply(
    object: KubernetesObject,
    options: {
      fieldManager: string;
      subresource?: string;
      dryRun?: boolean;
      strict?: boolean;
    },
  ): Promise<RawResponse> {
    const query = new URLSearchParams({
      ...(options.dryRun ? { dryRun: 'All' } : {}),
      fieldManager: options.fieldManager,
      force: 'true',
      ...(options.strict ? { fieldValidation: 'Strict' } : {}),
    });
    return this.request(
      'PATCH',
      `${await this.objectPath(object, options.subresource)}?${query}`,
      object,
      'application/apply-patch+yaml',
    );
  }

  /** The resources of one API group version, by kind, from the server's discovery. */
  private resources(apiVersion: string): Promise<Map<string, Resource>> {
    let resources = this.discovery.get(apiVersion);
    if (!resources) {
      resources = this.request('GET', apiBase(apiVersion)).then(response => {
        if (response.status >= 300) {
          throw new Error(
            `The API server does not serve ${apiVersion}: HTTP ${response.status}`,
          );
        }
        const byKind = new Map<string, Resource>();
        for (const r of response.body.resources as Array<
          Resource & { kind: string }
        >) {
          if (!r.name.includes('/')) {
            byKind.set(r.kind, { name: r.name, namespaced: r.namespaced });
          }
        }
        return byKind;
      });
      this.discovery.set(apiVersion, resources);
    }
    return resources;
  }

  /** The path of the object (or of one of its subresources), from the server's discovery. */
  async objectPath(
    object: KubernetesObject,
    subresource?: string,
  ): Promise<string> {
    const apiVersion = object.apiVersion!;
    const resource = (await this.resources(apiVersion)).get(object.kind!);
    if (!resource) {
      throw new Error(
        `The API server does not serve ${apiVersion} ${object.kind}`,
      );
    }
    const namespace = object.metadata?.namespace;
    if (resource.namespaced && !namespace) {
      throw new Error(`${describeObject(object)} is namespaced but has none`);
    }
    if (!resource.namespaced && namespace) {
      throw new Error(
        `${describeObject(object)} is cluster-scoped but has a namespace`,
      );
    }
    const scope = resource.namespaced
      ? `/namespaces/${encodeURIComponent(namespace!)}`
      : '';
    return `${apiBase(apiVersion)}${scope}/${
      resource.name
    }/${encodeURIComponent(object.metadata!.name!)}${
      subresource ? `/${subresource}` : ''
    }`;
  }

  /** One request; the answer whatever its status (the body parsed when it is JSON). */
  async request(
    method: string,
    path: string,
    body?: unknown,
    contentType = 'application/json',
  ): Promise<RawResponse> {
    const server = new URL(this.kc.getCurrentCluster()!.server);
    const options: https.RequestOptions = {
      method,
      hostname: server.hostname,
      port: server.port,
      path,
      headers: { 'Content-Type': contentType, Accept: 'application/json' },
    };
    await this.kc.applyToHTTPSOptions(options);
    return new Promise((resolve, reject) => {
      const req = https.request(options, res => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', chunk => {
          text += chunk;
        });
        res.on('end', () => {
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            // not JSON: keep the text
          }
          resolve({ status: res.statusCode ?? 500, body: parsed });
        });
      });
      req.on('error', reject);
      req.setTimeout(30_000, () =>
        req.destroy(new Error(`${method} ${path}: timeout`)),
      );
      if (body !== undefined) req.write(JSON.stringify(body));
      req.end();
    });
  }
}

function apiBase(apiVersion: string): string {
  return apiVersion.includes('/')
    ? `/apis/${apiVersion}`
    : `/api/${apiVersion}`;
}

/**
 * `Kind namespace/name` (`Kind name` when cluster-scoped).
 *
 * @public
 */
export function describeObject(object: KubernetesObject): string {
  const { namespace, name } = object.metadata ?? {};
  return `${object.kind} ${namespace ? `${namespace}/` : ''}${name}`;
}
