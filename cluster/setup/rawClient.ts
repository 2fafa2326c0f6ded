import { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import {
  describeObject,
  RawKubernetesClient,
  RawResponse,
} from '@gpu-platform/backstage-plugin-gpu-node/testUtils';

/**
 * The set-up's calls, over gpu-node's {@link RawKubernetesClient} (the JSON exactly as given: Kueue's CRDs keep keys
 * such as `x-kubernetes-int-or-string` that `KubernetesObjectApi` would drop), failing on any answer but success.
 */
export class RawClient {
  private readonly raw: RawKubernetesClient;

  constructor(kc: KubeConfig, private readonly fieldManager: string) {
    this.raw = new RawKubernetesClient(kc);
  }

  /** Server-side apply of the object, or of one of its subresources (a Node's `status`). */
  async apply(
    object: KubernetesObject,
    subresource?: string,
  ): Promise<unknown> {
    return this.ok(
      object,
      await this.raw.apply(object, {
        fieldManager: this.fieldManager,
        subresource,
      }),
    );
  }

  /** POST to a subresource of the object, e.g. a ServiceAccount's `token` (TokenRequest). */
  async create(
    object: KubernetesObject,
    subresource: string,
    body: unknown,
  ): Promise<unknown> {
    const path = await this.raw.objectPath(object, subresource);
    return this.ok(object, await this.raw.request('POST', path, body));
  }

  async read<T = KubernetesObject>(object: KubernetesObject): Promise<T> {
    const path = await this.raw.objectPath(object);
    return this.ok(object, await this.raw.request('GET', path)) as T;
  }

  private ok(object: KubernetesObject, response: RawResponse): unknown {
    if (response.status >= 300) {
      throw new Error(
        `${describeObject(object)}: HTTP ${response.status}: ${JSON.stringify(
          response.body,
        )}`,
      );
    }
    return response.body;
  }
}
