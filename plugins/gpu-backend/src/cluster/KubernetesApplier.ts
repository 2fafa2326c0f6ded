import type { KubernetesObject } from '@kubernetes/client-node';
import type { LoggerService } from '@backstage/backend-plugin-api';
import { InputError } from '@backstage/errors';
import {
  FIELD_MANAGER,
  OWNERSHIP_LABELS,
} from '@gpu-platform/backstage-plugin-gpu-node';
import { compareManagedFields } from './compareManagedFields';
import { KubernetesApplyError, KubernetesRequestError } from './errors';
import { describeRef, refOf } from './objectRef';
import {
  RetryExhaustedError,
  RetryPolicy,
  retryPolicy,
  withRetry,
} from './retry';
import {
  DeleteOptions,
  ApplyResult,
  ClusterApplier,
  DeleteResult,
  DriftReport,
  KubernetesObjectClient,
  ListOptions,
  ObjectDrift,
  ObjectRef,
  OwnedKind,
  RetryOptions,
} from './types';

/** Page size of {@link KubernetesApplier.list}. */
const LIST_PAGE = 500;

/** Options of {@link KubernetesApplier}. */
export interface KubernetesApplierOptions {
  /** Cluster name, for messages and logs. */
  cluster: string;
  client: KubernetesObjectClient;
  retry?: RetryOptions;
  logger?: LoggerService;
}

/**
 * Applies rendered objects to one cluster with server-side apply: one forced PATCH
 * (`application/apply-patch+yaml`, field manager `backstage-gpu`) per object, in the
 * order given, each retried with exponential backoff on 409, 429, 5xx, timeouts and
 * connection failures. Applying unchanged objects again sends the same patches and
 * changes nothing in the cluster.
 */
export class KubernetesApplier implements ClusterApplier {
  readonly cluster: string;
  private readonly client: KubernetesObjectClient;
  private readonly retry: RetryPolicy;
  private readonly logger?: LoggerService;

  constructor(options: KubernetesApplierOptions) {
    this.cluster = options.cluster;
    this.client = options.client;
    this.retry = retryPolicy(options.retry);
    this.logger = options.logger;
  }

  async apply(objects: KubernetesObject[]): Promise<ApplyResult[]> {
    const refs = objects.map(refOf);
    const results: ApplyResult[] = [];
    for (const [index, object] of objects.entries()) {
      const ref = refs[index];
      const { value, attempts } = await this.request(ref, () =>
        this.client.apply(object),
      );
      results.push({
        ref,
        attempts,
        resourceVersion: value.metadata?.resourceVersion,
        applied: value,
      });
    }
    this.logger?.debug('Applied objects', {
      cluster: this.cluster,
      objects: results.length,
      retries: results.reduce((sum, r) => sum + r.attempts - 1, 0),
    });
    return results;
  }

  async deleteByOwnership(
    serviceId: string,
    kinds: OwnedKind[],
  ): Promise<DeleteResult[]> {
    if (!serviceId) {
      throw new InputError('deleteByOwnership needs a service id');
    }
    const labelSelector = `${OWNERSHIP_LABELS.serviceId}=${serviceId},${OWNERSHIP_LABELS.managedBy}=${FIELD_MANAGER}`;
    const results: DeleteResult[] = [];
    for (const kind of kinds) {
      const listRef: ObjectRef = { ...kind, name: `(${labelSelector})` };
      const { value: list } = await this.request(listRef, () =>
        this.client.list({ ...kind, labelSelector }),
      );
      const refs = list.items
        .map(item =>
          refOf({ ...item, apiVersion: kind.apiVersion, kind: kind.kind }),
        )
        .sort((a, b) =>
          `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`),
        );
      for (const ref of refs) {
        results.push({ ref, outcome: await this.deleteOne(ref) });
      }
    }
    this.logger?.info('Deleted owned objects', {
      cluster: this.cluster,
      serviceId,
      deleted: results.filter(r => r.outcome === 'deleted').length,
    });
    return results;
  }

  async deleteObjects(
    refs: ObjectRef[],
    options?: DeleteOptions,
  ): Promise<DeleteResult[]> {
    const results: DeleteResult[] = [];
    for (const ref of refs) {
      results.push({ ref, outcome: await this.deleteOne(ref, options) });
    }
    return results;
  }

  async diff(objects: KubernetesObject[]): Promise<DriftReport> {
    const drifted: ObjectDrift[] = [];
    for (const object of objects) {
      const ref = refOf(object);
      const live = await this.readOrUndefined(ref);
      if (!live) {
        drifted.push({ ref, state: 'missing' });
        continue;
      }
      const fields = compareManagedFields(object, live);
      if (fields.length > 0) {
        drifted.push({ ref, state: 'changed', fields });
      }
    }
    return { inSync: drifted.length === 0, drifted };
  }

  async read(ref: ObjectRef): Promise<KubernetesObject | undefined> {
    return this.readOrUndefined(ref);
  }

  async list(
    options: Omit<ListOptions, 'limit' | 'continueToken'>,
  ): Promise<KubernetesObject[]> {
    const listRef: ObjectRef = {
      ...options,
      name: `(${options.labelSelector ?? 'all'})`,
    };
    const items: KubernetesObject[] = [];
    let continueToken: string | undefined;
    do {
      const pageOptions = { ...options, limit: LIST_PAGE, continueToken };
      const { value: page } = await this.request(listRef, () =>
        this.client.list(pageOptions),
      );
      items.push(
        ...page.items.map(item => ({
          ...item,
          apiVersion: options.apiVersion,
          kind: options.kind,
        })),
      );
      continueToken = page.continueToken;
    } while (continueToken);
    return items;
  }

  async serves(apiVersion: string, kind: string): Promise<boolean> {
    const ref: ObjectRef = { apiVersion, kind, name: '(discovery)' };
    return (await this.request(ref, () => this.client.serves(apiVersion, kind)))
      .value;
  }

  private async deleteOne(
    ref: ObjectRef,
    options?: DeleteOptions,
  ): Promise<DeleteResult['outcome']> {
    try {
      await this.request(ref, () => this.client.delete(ref, options));
      return 'deleted';
    } catch (error) {
      if (error instanceof KubernetesApplyError && error.statusCode === 404) {
        return 'already-gone';
      }
      throw error;
    }
  }

  private async readOrUndefined(
    ref: ObjectRef,
  ): Promise<KubernetesObject | undefined> {
    try {
      return (await this.request(ref, () => this.client.read(ref))).value;
    } catch (error) {
      if (error instanceof KubernetesApplyError && error.statusCode === 404) {
        return undefined;
      }
      throw error;
    }
  }

  /** One request with retries; a final failure names the object and the cluster's message. */
  private async request<T>(
    ref: ObjectRef,
    call: () => Promise<T>,
  ): Promise<{ value: T; attempts: number }> {
    try {
      return await withRetry(this.retry, call);
    } catch (error) {
      if (!(error instanceof RetryExhaustedError)) {
        throw error;
      }
      const failure: KubernetesRequestError = error.failure;
      if (failure.statusCode !== 404) {
        this.logger?.warn(`Kubernetes request for ${describeRef(ref)} failed`, {
          cluster: this.cluster,
          attempts: error.attempts,
          status: failure.statusCode,
          failure: failure.failure,
        });
      }
      throw new KubernetesApplyError(
        this.cluster,
        ref,
        error.attempts,
        failure.message,
        failure.statusCode,
        failure,
      );
    }
  }
}
