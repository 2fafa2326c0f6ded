import type { KubernetesObject } from '@kubernetes/client-node';
import {
  describeObject,
  RawKubernetesClient,
} from '../testUtils/RawKubernetesClient';

/** The field manager the gpu backend applies with. */
export const FIELD_MANAGER = 'backstage-gpu';

/** What the API server said about one object it rejected. */
export interface Rejection {
  /** `Kind namespace/name`. */
  object: string;
  status: number;
  message: string;
}

/** Test-only: server-side apply dry runs of objects exactly as rendered (see {@link RawKubernetesClient}). */
export class DryRunClient {
  private constructor(private readonly raw: RawKubernetesClient) {}

  static fromKubeconfig(file: string): DryRunClient {
    return new DryRunClient(RawKubernetesClient.fromKubeconfig(file));
  }

  /**
   * Server-side apply as a dry run (`dryRun=All`, field manager `backstage-gpu`, `force=true`, strict field
   * validation): admission (CEL rules, validating and mutating webhooks) runs, nothing is stored.
   *
   * @returns undefined when the server accepts the object, else what it said.
   */
  async dryRunApply(object: KubernetesObject): Promise<Rejection | undefined> {
    const response = await this.raw.apply(object, {
      fieldManager: FIELD_MANAGER,
      dryRun: true,
      strict: true,
    });
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
      const response = await this.raw.request('POST', '/api/v1/namespaces', {
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
      const existing = await this.raw.request(
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
    const response = await this.raw.request(
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
}

export { describeObject };
