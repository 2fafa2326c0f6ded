import { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import https from 'node:https';

/**
 * Server-side apply and reads with the object's JSON exactly as given. `KubernetesObjectApi` serialises known kinds
 * through its typed models, which drops keys such as `x-kubernetes-int-or-string` from CRD schemas; the set-up sends
 * Kueue's CRDs as the module ships them.
 */
export class RawClient {
  constructor(
    private readonly kc: KubeConfig,
    private readonly fieldManager: string,
  ) {}

  async apply(
    object: KubernetesObject,
    subresource?: string,
  ): Promise<unknown> {
    const path = `${await this.objectPath(object)}${
      subresource ? `/${subresource}` : ''
    }`;
    return this.request(
      'PATCH',
      `${path}?fieldManager=${this.fieldManager}&force=true`,
      object,
      'application/apply-patch+yaml',
    );
  }

  /** POST to a subresource of the object, e.g. a ServiceAccount's `token` (TokenRequest). */
  async create(
    object: KubernetesObject,
    subresource: string,
    body: unknown,
  ): Promise<unknown> {
    return this.request(
      'POST',
      `${await this.objectPath(object)}/${subresource}`,
      body,
    );
  }

  async read<T = KubernetesObject>(object: KubernetesObject): Promise<T> {
    return (await this.request('GET', await this.objectPath(object))) as T;
  }

  private readonly resources = new Map<
    string,
    { name: string; namespaced: boolean }[]
  >();

  private async objectPath(object: KubernetesObject): Promise<string> {
    const apiVersion = object.apiVersion!;
    const base = apiVersion.includes('/')
      ? `/apis/${apiVersion}`
      : `/api/${apiVersion}`;
    if (!this.resources.has(apiVersion)) {
      const list = (await this.request('GET', base)) as {
        resources: Array<{ name: string; kind: string; namespaced: boolean }>;
      };
      for (const r of list.resources) {
        if (r.name.includes('/')) continue;
        const key = `${apiVersion}/${r.kind}`;
        this.resources.set(key, [{ name: r.name, namespaced: r.namespaced }]);
      }
      this.resources.set(apiVersion, []);
    }
    const resource = this.resources.get(`${apiVersion}/${object.kind}`)?.[0];
    if (!resource)
      throw new Error(
        `The API server does not serve ${apiVersion} ${object.kind}`,
      );
    const namespace = resource.namespaced
      ? `/namespaces/${object.metadata?.namespace ?? 'default'}`
      : '';
    return `${base}${namespace}/${resource.name}/${object.metadata!.name}`;
  }

  private async request(
    method: string,
    path: string,
    body?: unknown,
    contentType = 'application/json',
  ): Promise<unknown> {
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
          if ((res.statusCode ?? 500) >= 300) {
            reject(
              new Error(`${method} ${path}: HTTP ${res.statusCode}: ${text}`),
            );
          } else {
            resolve(text ? JSON.parse(text) : undefined);
          }
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
