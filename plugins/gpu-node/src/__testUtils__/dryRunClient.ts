import https from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import type { KubernetesObject } from '@kubernetes/client-node';

/** The field manager the gpu backend applies with. */
export const FIELD_MANAGER = 'backstage-gpu';

/** A response of the API server: its status code and body (parsed when it is JSON). */
interface Response {
  status: number;
  body: any;
}

/** What the API server said about one object it rejected. */
export interface Rejection {
  /** `Kind namespace/name`. */
  object: string;
  status: number;
  message: string;
}

interface Resource {
  name: string;
  namespaced: boolean;
}

/**
 * Test-only: a minimal client of a real API server that sends objects exactly as rendered. The JSON goes out as is,
 * with no typed serialisation in between (`KubernetesObjectApi` of `@kubernetes/client-node` runs known kinds through
 * its models, which drops unknown fields and would hide exactly the errors a server-side check must find). Resource
 * paths come from the server's discovery documents (`/api/v1`, `/apis/<group>/<version>`).
 */
export class DryRunClient {
  private readonly discovery = new Map<
    string,
    Promise<Map<string, Resource>>
  >();

  private constructor(private readonly kc: KubeConfig) {}

  static fromKubeconfig(file: string): DryRunClient {
    const kc = new KubeConfig();
    kc.loadFromFile(file);
    return new DryRunClient(kc);
  }

  /**
   * Server-side apply as a dry run (`dryRun=All`, field manager `backstage-gpu`, `force=true`, strict field
   * validation): admission (CEL rules, validating and mutating webhooks) runs, nothing is stored.
   *
   * @returns undefined when the server accepts the object, else what it said.
   */
  async dryRunApply(object: KubernetesObject): Promise<Rejection | undefined> {
    const query = new URLSearchParams({
      dryRun: 'All',
      fieldManager: FIELD_MANAGER,
      force: 'true',
      fieldValidation: 'Strict',
    });
    const response = await this.request(
      'PATCH',
      `${await this.objectPath(object)}?${query}`,
      object,
      'application/apply-patch+yaml',
    );
    if (response.status < 300) return undefined;
    return {
      object: describeObject(object),
      status: response.status,
      message:
        typeof response.body === 'object' && response.body?.message
          ? response.body.message
          : String(response.body),
    };
  }

  /**
   * Creates a namespace (a real create). One that exists is fine; one still terminating (say, from the previous run)
   * is waited for and created anew.
   *
   * @returns whether this call created it.
   */
  async ensureNamespace(
    name: string,
    labels: Record<string, string> = {},
    timeoutMs = 90_000,
  ): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const response = await this.request('POST', '/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name, labels },
      });
      if (response.status < 300) return true;
      if (response.status !== 409) {
        throw new Error(
          `Creating namespace ${name}: HTTP ${
            response.status
          }: ${JSON.stringify(response.body)}`,
        );
      }
      const existing = await this.request(
        'GET',
        `/api/v1/namespaces/${encodeURIComponent(name)}`,
      );
      if (
        existing.status < 300 &&
        existing.body?.status?.phase !== 'Terminating'
      ) {
        return false;
      }
      if (Date.now() > deadline) {
        throw new Error(`Namespace ${name} is still terminating`);
      }
      await new Promise(resolve => setTimeout(resolve, 500));
    }
  }

  /** Deletes a namespace without waiting for it to go (a missing one is fine). */
  async deleteNamespace(name: string): Promise<void> {
    const response = await this.request(
      'DELETE',
      `/api/v1/namespaces/${encodeURIComponent(name)}`,
    );
    if (response.status >= 300 && response.status !== 404) {
      throw new Error(
        `Deleting namespace ${name}: HTTP ${response.status}: ${JSON.stringify(
          response.body,
        )}`,
      );
    }
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

  private async objectPath(object: KubernetesObject): Promise<string> {
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
    }/${encodeURIComponent(object.metadata!.name!)}`;
  }

  private async request(
    method: string,
    path: string,
    body?: unknown,
    contentType = 'application/json',
  ): Promise<Response> {
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

/** `Kind namespace/name` (`Kind name` when cluster-scoped). */
export function describeObject(object: KubernetesObject): string {
  const { namespace, name } = object.metadata ?? {};
  return `${object.kind} ${namespace ? `${namespace}/` : ''}${name}`;
}
