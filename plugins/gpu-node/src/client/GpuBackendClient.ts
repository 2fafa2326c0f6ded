import {
  AuthService,
  BackstageCredentials,
  DiscoveryService,
} from '@backstage/backend-plugin-api';
import {
  ConflictError,
  InputError,
  NotAllowedError,
  NotFoundError,
  ResponseError,
} from '@backstage/errors';
import {
  ConfirmServiceBody,
  CreateServiceBody,
  GpuServiceView,
  PlatformManifestsResponse,
  Quote,
  ServiceRequest,
  ServiceStatus,
  UpdateServiceBody,
} from '@gpu-platform/backstage-plugin-gpu-common';
import type { KubernetesObject } from '@kubernetes/client-node';
import type {
  BatchJobStatus,
  BatchJobSubmission,
  SubmitBatchJobBody,
} from '../batch/api';

/**
 * A service with the manifests rendered for it, as `GET /services/:id` and a create preview answer.
 *
 * @public
 */
export type GpuServiceDetail = GpuServiceView & {
  manifests: KubernetesObject[];
};

/**
 * Filters of {@link GpuBackendClient.listServices}.
 *
 * @public
 */
export interface ListServicesFilter {
  entityRef?: string;
  team?: string;
  status?: ServiceStatus;
}

/**
 * Who a call is made for: the user (or service) whose credentials the gpu backend checks.
 *
 * @public
 */
export interface GpuCallOptions {
  credentials: BackstageCredentials;
}

/**
 * A typed client of the `gpu` backend plugin's REST API for other backend plugins and modules, with
 * service-to-service auth on behalf of the caller's credentials.
 *
 * @public
 */
export class GpuBackendClient {
  private readonly discovery: DiscoveryService;
  private readonly auth: AuthService;

  constructor(options: { discovery: DiscoveryService; auth: AuthService }) {
    this.discovery = options.discovery;
    this.auth = options.auth;
  }

  quote(request: ServiceRequest, options: GpuCallOptions): Promise<Quote> {
    return this.call('POST', '/quote', options, request);
  }

  /** Creates a service, idempotently when the body has a `requestKey`. */
  createService(
    body: Omit<CreateServiceBody, 'dryRun'>,
    options: GpuCallOptions,
  ): Promise<GpuServiceView> {
    return this.call('POST', '/services', options, body);
  }

  /** What {@link GpuBackendClient.createService} would create (id `dry-run`), with its manifests; stores nothing. */
  previewService(
    body: Omit<CreateServiceBody, 'dryRun'>,
    options: GpuCallOptions,
  ): Promise<GpuServiceDetail> {
    return this.call('POST', '/services', options, { ...body, dryRun: true });
  }

  getService(id: string, options: GpuCallOptions): Promise<GpuServiceDetail> {
    return this.call('GET', `/services/${encodeURIComponent(id)}`, options);
  }

  listServices(
    filter: ListServicesFilter,
    options: GpuCallOptions,
  ): Promise<{ items: GpuServiceView[] }> {
    const query = new URLSearchParams(
      Object.entries(filter).filter(
        (entry): entry is [string, string] => entry[1] !== undefined,
      ),
    );
    return this.call('GET', `/services?${query}`, options);
  }

  /**
   * Confirms a service created with `provisional: true` (a template's last step), so that it is not deleted when its
   * `confirmBy` passes; confirming a confirmed service answers it unchanged. A GitOps service is confirmed with
   * `body.pullRequestUrl`, the pull request that delivers it, which its reservation then follows.
   */
  confirmService(
    id: string,
    options: GpuCallOptions,
    body?: ConfirmServiceBody,
  ): Promise<GpuServiceView> {
    return this.call(
      'POST',
      `/services/${encodeURIComponent(id)}/confirm`,
      options,
      body,
    );
  }

  /**
   * Changes a service's tier, pool, replicas or model: re-quoted, re-reserved and rendered again (applied again when
   * Backstage applies it). A change policy does not allow at once answers the service unchanged, with the pending
   * approval of the change.
   */
  updateService(
    id: string,
    body: UpdateServiceBody,
    options: GpuCallOptions,
  ): Promise<GpuServiceView> {
    return this.call(
      'PATCH',
      `/services/${encodeURIComponent(id)}`,
      options,
      body,
    );
  }

  /**
   * What {@link GpuBackendClient.updateService} would record (`dryRun`): the new spec with its manifests, the
   * reservation it would hold, and the approval it would wait for, weighed by admission without the service's own
   * current reservation; nothing is changed.
   */
  previewServiceChange(
    id: string,
    body: Omit<UpdateServiceBody, 'dryRun' | 'provisional'>,
    options: GpuCallOptions,
  ): Promise<GpuServiceDetail> {
    return this.call('PATCH', `/services/${encodeURIComponent(id)}`, options, {
      ...body,
      dryRun: true,
    });
  }

  /**
   * Retries a service (`POST /services/:id/retry`): completes what left it `failed`, or, for a GitOps service whose
   * pull request was closed without merging, not merged in time or never confirmed, weighs it again against the
   * team's quota, budget and policy, reserves it again and renders it again, to be published in a new pull request
   * and confirmed ({@link GpuBackendClient.confirmService}) with it. A refusal is a `ConflictError` with the reason.
   */
  retryService(id: string, options: GpuCallOptions): Promise<GpuServiceView> {
    return this.call(
      'POST',
      `/services/${encodeURIComponent(id)}/retry`,
      options,
    );
  }

  /** Tears the service down and releases its quota; deleting a deleted service answers it unchanged. */
  deleteService(id: string, options: GpuCallOptions): Promise<GpuServiceView> {
    return this.call('DELETE', `/services/${encodeURIComponent(id)}`, options);
  }

  /** Submits a GPU batch job to the team's Kueue queue (with `dryRun`, only renders it). */
  submitBatchJob(
    body: SubmitBatchJobBody,
    options: GpuCallOptions,
  ): Promise<BatchJobSubmission> {
    return this.call('POST', '/batch-jobs', options, body);
  }

  /** A batch job's live status and Kueue admission. */
  getBatchJob(
    namespace: string,
    name: string,
    options: GpuCallOptions,
  ): Promise<BatchJobStatus> {
    return this.call(
      'GET',
      `/batch-jobs/${encodeURIComponent(namespace)}/${encodeURIComponent(
        name,
      )}`,
      options,
    );
  }

  /** Every platform object of a GitOps (or dry-run) cluster as files for its repository; needs `gpu.quota.read`. */
  getPlatformManifests(
    cluster: string,
    options: GpuCallOptions,
  ): Promise<PlatformManifestsResponse> {
    return this.call(
      'GET',
      `/platform/manifests?${new URLSearchParams({ cluster })}`,
      options,
    );
  }

  private async call<T>(
    method: string,
    path: string,
    options: GpuCallOptions,
    body?: unknown,
  ): Promise<T> {
    const baseUrl = await this.discovery.getBaseUrl('gpu');
    const { token } = await this.auth.getPluginRequestToken({
      onBehalfOf: options.credentials,
      targetPluginId: 'gpu',
    });
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) {
      throw toTypedError(await ResponseError.fromResponse(res));
    }
    // Parsed here rather than with res.json(): values from fetch's own realm (a different one under Jest) are
    // rejected by the scaffolder's templating when they reach step outputs.
    return JSON.parse(await res.text()) as T;
  }
}

/** Rethrows the gpu backend's 4xx answers as the `@backstage/errors` type it threw, keeping its message. */
function toTypedError(error: ResponseError): Error {
  const message = error.body?.error?.message ?? error.message;
  switch (error.statusCode) {
    case 400:
      return new InputError(message, error);
    case 403:
      return new NotAllowedError(message, error);
    case 404:
      return new NotFoundError(message, error);
    case 409:
      return new ConflictError(message, error);
    default:
      return error;
  }
}
