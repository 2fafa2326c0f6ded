import {
  AutoscaledReplicasPolicy,
  ClusterMode,
  dedicatedGpuLimitReason,
  demoPlatformConfig,
  describeRollout,
  allowanceFromConfig,
  allowanceUnits,
  budgetFit,
  formatGpuUnits,
  formatUsd,
  gpuUnitsOf,
  GpuServiceView,
  parsePlatform,
  physicalCapacityShortfall,
  Placement,
  Platform,
  poolCapacity,
  poolCapacityFit,
  poolCapacityReason,
  QuoteOption,
  quotaFit,
  quoteService,
  RetriablePullRequestEnd,
  ServiceRequest,
  serviceConditions,
  parseServiceDefaults,
  ServiceReason,
  ServiceStatus,
  resolveServiceSettings,
  spotInProductionReason,
  surgeFit,
  validateServiceRequest,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  renderServiceManifests,
  renderTeamManifests,
  RUNTIME_PORTS,
  serviceObjectNames,
  WAKE_ENDPOINT_ANNOTATION,
} from '@gpu-platform/backstage-plugin-gpu-node';
import { http, HttpResponse, JsonBodyType } from 'msw';
import { randomUUID } from 'node:crypto';

/** Where `mockServices.discovery()` places the gpu backend. */
export const GPU_BASE_URL = 'http://localhost:0/api/gpu';

interface FakeService {
  view: GpuServiceView;
  manifests: unknown[];
  requestKey?: string;
  /** Quota the service holds (`held`), waits for (`pending`) or gave back (`released`). */
  reservation: 'held' | 'pending' | 'released';
  gpuEquivalents: number;
  monthlyCostMicros: number;
  /** A change pending until its pull request (`url`, once confirmed with it) is merged. */
  pendingChange?: { url?: string };
}

interface RecordedRequest {
  method: string;
  path: string;
  body: unknown;
  authorization: string | null;
}

function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v).sort(([a], [b]) => a.localeCompare(b)),
        )
      : v,
  );
}

function errorResponse(status: number, name: string, message: string) {
  return HttpResponse.json(
    { error: { name, message }, response: { statusCode: status } },
    { status },
  );
}

/**
 * msw handlers that behave like the gpu backend's service routes on a dry-run cluster, computed with the real
 * domain code (validation, quotes, rendering) on the demo platform: quota held per team, idempotency on
 * `(team, requestKey)`, 409 for a taken name or a reused key, 404 for unknown ids, dry-run previews, GitOps mode,
 * pending approval when the policy asks for it, changes (PATCH: re-quoted and re-rendered, or unchanged with a pending
 * approval of the change), idempotent delete releasing quota. `requests` records every call.
 * Its answers are checked against the real backend, action by action, in `fakeMatchesRealBackend.test.ts`.
 */
export function fakeGpuBackend(
  options: {
    mode?: ClusterMode;
    /** The backend's gpu.admission.autoscaledReplicas; default `maximum`, as the backend's. */
    autoscaledReplicas?: AutoscaledReplicasPolicy;
    /** The backend's gpu.serviceDefaults as in app-config (e.g. `{ scaleToZero: { httpAddOn: {} } }`); default none. */
    serviceDefaults?: Record<string, unknown>;
    /**
     * The GitOps cluster the backend reads back with a read-only credential (gpu.clusters[].readOnlyAuth): a delete
     * of a GitOps service then waits for its controller's prune (`AwaitingPrune`, quota held) until {@link prune}.
     */
    gitopsReadBack?: { cluster: string };
  } = {},
) {
  const platform: Platform = parsePlatform(demoPlatformConfig);
  const clusterMode = options.mode ?? 'dry-run';
  const serviceDefaults = parseServiceDefaults(
    options.serviceDefaults,
    platform,
  );
  const requests: RecordedRequest[] = [];
  const services = new Map<string, FakeService>();

  async function record(request: Request, path: string) {
    const text =
      request.method === 'GET' || request.method === 'DELETE'
        ? ''
        : await request.text();
    const body = text ? JSON.parse(text) : undefined;
    requests.push({
      method: request.method,
      path,
      body,
      authorization: request.headers.get('authorization'),
    });
    return body;
  }

  /** GPU units the team's held services take, per pool (the store's ledger). */
  function reservedGpuUnitsOf(team: string): Record<string, number> {
    const reserved: Record<string, number> = {};
    for (const s of services.values()) {
      if (s.view.team !== team || s.reservation !== 'held') continue;
      reserved[s.view.placement.pool] =
        (reserved[s.view.placement.pool] ?? 0) +
        gpuUnitsOf(s.gpuEquivalents, 'held');
    }
    return reserved;
  }

  function quote(request: ServiceRequest) {
    const held = [...services.values()].filter(
      s => s.view.team === request.team && s.reservation === 'held',
    );
    return quoteService(
      platform,
      request,
      {
        reservedGpuUnits: reservedGpuUnitsOf(request.team),
        committedMonthlyCost: held.reduce(
          (sum, s) => sum + s.monthlyCostMicros,
          0,
        ),
      },
      undefined,
      { autoscaledReplicas: options.autoscaledReplicas },
    );
  }

  /** The store's admission check: what the request needs beyond the team's free quota and budget (its wording). */
  /** The store's capacity rule (gpu-common poolCapacityFit) against what every team holds on the pool, its default policy. */
  function overCapacityReasons(
    placement: Placement,
    option: QuoteOption,
  ): string[] {
    const held = { units: 0, unitsByProfile: {} as Record<string, number> };
    for (const s of services.values()) {
      if (
        s.reservation !== 'held' ||
        s.view.placement.pool !== placement.pool
      ) {
        continue;
      }
      const units = gpuUnitsOf(s.gpuEquivalents, 'held');
      held.units += units;
      const profile = s.view.placement.migProfile;
      if (profile) {
        held.unitsByProfile[profile] =
          (held.unitsByProfile[profile] ?? 0) + units;
      }
    }
    const fit = poolCapacityFit(
      poolCapacity(
        platform,
        platform.pools.find(p => p.name === placement.pool)!,
      ),
      held,
      {
        gpuUnits: option.slice.gpuUnits * option.replicas,
        migProfile: placement.migProfile,
      },
    );
    const reason = poolCapacityReason(fit, 'approval');
    return reason ? [reason] : [];
  }

  function overQuotaReasons(
    team: string,
    pool: string,
    option: QuoteOption,
  ): string[] {
    const allowance = allowanceFromConfig(
      platform.teams.find(t => t.name === team)!,
    );
    const held = [...services.values()].filter(
      s => s.view.team === team && s.reservation === 'held',
    );
    const usd = (micros: number) =>
      `$${(micros / 1_000_000).toLocaleString('en-US', {
        minimumFractionDigits: 2,
        maximumFractionDigits: 2,
      })}`;
    const reasons: string[] = [];
    // The store's rule (gpu-common quotaFit / budgetFit) on integer GPU units and micro-dollars.
    const nominal = allowanceUnits(allowance, pool);
    const quota = quotaFit(
      nominal,
      held
        .filter(s => s.view.placement.pool === pool)
        .reduce((n, s) => n + gpuUnitsOf(s.gpuEquivalents, 'held'), 0),
      option.slice.gpuUnits * option.replicas,
    );
    if (!quota.fits) {
      reasons.push(
        `Team '${team}' asks for ${formatGpuUnits(
          option.slice.gpuUnits * option.replicas,
        )} GPU-equivalents in pool '${pool}' ` +
          `but only ${formatGpuUnits(quota.free)} of ${formatGpuUnits(
            nominal,
          )} are free`,
      );
    }
    const budget = allowance.monthlyBudgetMicros;
    const money = budgetFit(
      budget,
      held.reduce((n, s) => n + s.monthlyCostMicros, 0),
      option.cost.monthly,
    );
    if (!money.fits) {
      reasons.push(
        `Team '${team}' asks for ${usd(
          option.cost.monthly,
        )} a month but only ${usd(money.free)} of its ${usd(
          budget,
        )} monthly budget is free`,
      );
    }
    return reasons;
  }

  function chooseOption(request: ServiceRequest): QuoteOption {
    const q = quote(request);
    if (!q.recommended) {
      const why = q.unavailable.map(
        u => `${u.slice.tier} on ${u.slice.pool}: ${u.reason}`,
      );
      throw Object.assign(
        new Error(
          `No tier and pool can run ${q.service}: ${why
            .slice(0, 5)
            .join('; ')}`,
        ),
        { name: 'InputError' },
      );
    }
    return q.recommended;
  }

  function newService(
    id: string,
    body: {
      request: ServiceRequest;
      entityRef?: string;
      mode?: 'gitops';
      requestKey?: string;
      provisional?: boolean;
    },
  ): FakeService {
    const request = validateServiceRequest(platform, body.request);
    const option = chooseOption(request);
    const namespace =
      request.namespace ??
      platform.teams.find(t => t.name === request.team)!.namespaces[0];
    const placement: Placement = {
      tier: option.slice.tier,
      pool: option.slice.pool,
      ...(option.slice.migProfile
        ? { migProfile: option.slice.migProfile }
        : {}),
      gpusPerReplica: option.slice.gpusPerReplica,
    };
    // As the store refuses at creation: a request that alone needs more than its pool physically has.
    const shortfall = physicalCapacityShortfall(
      poolCapacity(
        platform,
        platform.pools.find(p => p.name === placement.pool)!,
      ),
      {
        gpuUnits: option.slice.gpuUnits * option.replicas,
        migProfile: placement.migProfile,
      },
    );
    if (shortfall) {
      throw Object.assign(new Error(shortfall), { name: 'InputError' });
    }
    const preview = id === 'dry-run';
    const settings = resolveServiceSettings(serviceDefaults, {
      environment: request.environment,
      pool: placement.pool,
    });
    // A preview goes by the quote's verdict; a create also by the store's admission check, as the backend does.
    const quoteReasons = option.verdict === 'allowed' ? [] : option.reasons;
    const admissionReasons = preview
      ? []
      : [
          ...overCapacityReasons(placement, option),
          ...overQuotaReasons(request.team, option.slice.pool, option),
        ];
    const pending = quoteReasons.length + admissionReasons.length > 0;
    // A create answers its pending approval weighed as the backend weighs it now (GET /services/:id says the same):
    // the environment's dedicated-GPU limit and spot in production, then admission's own reasons; the quote's
    // words for quota and capacity are not repeated.
    const environment = platform.environments.find(
      e => e.name === request.environment,
    )!;
    const reasons = preview
      ? quoteReasons
      : [
          dedicatedGpuLimitReason(environment, option.slice, option.replicas),
          spotInProductionReason(
            environment,
            platform.pools.find(p => p.name === placement.pool)!,
          ),
          ...admissionReasons,
        ].filter((r): r is string => r !== undefined);
    const mode: ClusterMode = body.mode ?? clusterMode;
    let status: ServiceStatus = 'approved';
    let reason: ServiceReason =
      mode === 'gitops' ? 'RenderedForGitOps' : 'DryRun';
    let statusReason =
      'Dry-run: no cluster is configured, the manifests are rendered and stored but not applied';
    if (pending) {
      status = 'pending-approval';
      reason = 'AwaitingApproval';
      statusReason = preview
        ? `Would wait for approval: ${reasons.join('; ')}`
        : reasons.join('; ') ||
          'Within quota, budget, pool capacity and policy now; waiting for an approver to decide';
    } else if (preview) {
      statusReason = 'Dry-run: nothing was stored, reserved or applied';
    } else if (mode === 'apply') {
      // As the gpu backend answers a create in apply mode: recorded, the reconciler applies it.
      status = 'applying';
      reason = 'Applying';
      statusReason = 'Recorded; the reconciler is applying it to the cluster';
    } else if (mode === 'gitops') {
      statusReason =
        'Rendered for GitOps: publish the manifests; nothing was applied by Backstage';
    }
    // A preview says what a zero-downtime rollout needs from quota (the backend's default settings: production and
    // staging roll out with a surge pod), by the same rule.
    if (preview && settings.zeroDowntimeRollouts) {
      const surge = surgeFit({
        platform,
        placement,
        allowance: allowanceFromConfig(
          platform.teams.find(t => t.name === request.team)!,
        ),
        reservedGpuUnits: reservedGpuUnitsOf(request.team),
        pendingUnits: option.slice.gpuUnits * option.replicas,
      });
      statusReason = `${statusReason}. ${describeRollout(surge)}`;
    }
    const fullRequest = { ...request, namespace };
    const now = new Date().toISOString();
    const names = serviceObjectNames(request.name);
    // Like the backend: a service waiting for approval is rendered when it is approved; a preview always is.
    const manifests =
      pending && !preview
        ? []
        : [
            ...renderTeamManifests(platform, request.team).filter(
              o => o.metadata?.namespace === namespace,
            ),
            ...renderServiceManifests(platform, fullRequest, placement, {
              ...settings,
              serviceId: id,
            }),
          ];
    // Like the backend's view: the HTTP add-on interceptor's URL and the host it routes by when the service scales to
    // zero through it, else its Service's address.
    const host = `${names.service}.${namespace}.svc.cluster.local`;
    const interceptor = (
      manifests.find(m => m.kind === 'HTTPScaledObject')?.metadata as
        | { annotations?: Record<string, string> }
        | undefined
    )?.annotations?.[WAKE_ENDPOINT_ANNOTATION];
    return {
      view: {
        id,
        name: request.name,
        team: request.team,
        namespace,
        entityRef: body.entityRef,
        environment: request.environment,
        status,
        reason,
        ...(statusReason ? { statusReason } : {}),
        generation: 1,
        conditions: serviceConditions({
          status,
          reason,
          statusReason,
          mode,
          generation: 1,
          statusChangedAt: now,
        }),
        request: fullRequest,
        placement,
        gpuEquivalents: option.gpuEquivalents,
        monthlyCost: formatUsd(option.cost.monthly),
        mode,
        ...(interceptor
          ? { endpoint: interceptor, endpointHost: host }
          : { endpoint: `http://${host}:${RUNTIME_PORTS[request.runtime]}` }),
        annotations: {
          'backstage.io/kubernetes-id': request.name,
          'backstage.io/kubernetes-namespace': namespace,
          'gpu.backstage.io/service-id': id,
        },
        ...(pending
          ? {
              approval: {
                id: randomUUID(),
                serviceId: id,
                team: request.team,
                kind: 'create' as const,
                state: 'pending' as const,
                reasons: reasons.map(message => ({ code: 'policy', message })),
                requestedBy: 'user:default/mock',
                requestedAt: now,
              },
            }
          : {}),
        // As the backend's default gpu.services.confirmWithin: an hour to confirm.
        ...(body.provisional && !preview
          ? { confirmBy: new Date(Date.now() + 3_600_000).toISOString() }
          : {}),
        createdBy: 'user:default/mock',
        createdAt: now,
        updatedAt: now,
      },
      manifests,
      requestKey: body.requestKey,
      reservation: pending ? 'pending' : 'held',
      gpuEquivalents: option.gpuEquivalents,
      monthlyCostMicros: option.cost.monthly,
    };
  }

  /**
   * The view with `retriableEnd` as the backend's `retriablePullRequestEnd` sets it: how a GitOps service's pull request
   * ended when a retry may follow.
   */
  function withRetriableEnd(view: GpuServiceView): GpuServiceView {
    const { retriableEnd: _, ...rest } = view;
    const ended = retriableEndOf(rest);
    return ended ? { ...rest, retriableEnd: ended } : rest;
  }

  function retriableEndOf(
    view: GpuServiceView,
  ): RetriablePullRequestEnd | undefined {
    if (view.mode !== 'gitops' || view.status !== 'deleted') return undefined;
    if (view.reason === 'PullRequestClosed') return 'closed';
    if (view.reason === 'PullRequestExpired') return 'expired';
    if (
      view.reason === 'Deleted' &&
      !view.pullRequest &&
      view.confirmBy &&
      Date.parse(view.confirmBy) <= Date.parse(view.updatedAt)
    ) {
      return 'unconfirmed';
    }
    return undefined;
  }

  function findService(id: string) {
    const service = services.get(id);
    if (!service) {
      return {
        error: errorResponse(
          404,
          'NotFoundError',
          `No GPU service with id ${id}`,
        ),
      };
    }
    return { service };
  }

  const handlers = [
    http.post(`${GPU_BASE_URL}/quote`, async ({ request }) => {
      const body = await record(request, '/quote');
      try {
        return HttpResponse.json(
          quote(
            validateServiceRequest(platform, body),
          ) as unknown as JsonBodyType,
        );
      } catch (error) {
        return errorResponse(400, 'InputError', (error as Error).message);
      }
    }),

    http.post(`${GPU_BASE_URL}/services`, async ({ request }) => {
      const body = await record(request, '/services');
      if (
        typeof body !== 'object' ||
        body === null ||
        typeof body.request !== 'object' ||
        (body.mode !== undefined && body.mode !== 'gitops') ||
        (body.dryRun !== undefined && typeof body.dryRun !== 'boolean') ||
        (body.provisional !== undefined &&
          typeof body.provisional !== 'boolean')
      ) {
        return errorResponse(
          400,
          'InputError',
          'Invalid service request: request: Required',
        );
      }
      try {
        if (body.dryRun) {
          const preview = newService('dry-run', body);
          return HttpResponse.json({
            ...preview.view,
            manifests: preview.manifests,
          } as JsonBodyType);
        }
        const team = body.request.team;
        const existing = [...services.values()].find(
          s =>
            body.requestKey !== undefined &&
            s.requestKey === body.requestKey &&
            s.view.team === team,
        );
        if (existing) {
          const again = newService(existing.view.id, body);
          if (
            canonicalJson(again.view.request) !==
            canonicalJson(existing.view.request)
          ) {
            return errorResponse(
              409,
              'ConflictError',
              `Request key '${body.requestKey}' was already used by team '${team}' for a different request (service '${existing.view.name}'); use a new key for a new request`,
            );
          }
          return HttpResponse.json(existing.view as unknown as JsonBodyType, {
            status: 200,
          });
        }
        const service = newService(randomUUID(), body);
        const live = [...services.values()].find(
          s =>
            s.view.name === service.view.name &&
            s.view.namespace === service.view.namespace &&
            !['deleted', 'rejected'].includes(s.view.status),
        );
        if (live) {
          return errorResponse(
            409,
            'ConflictError',
            `A service named '${service.view.name}' already exists in namespace '${service.view.namespace}'; delete it first or choose another name`,
          );
        }
        services.set(service.view.id, service);
        return HttpResponse.json(service.view as unknown as JsonBodyType, {
          status: 201,
        });
      } catch (error) {
        return errorResponse(400, 'InputError', (error as Error).message);
      }
    }),

    http.get(`${GPU_BASE_URL}/services`, async ({ request }) => {
      await record(request, '/services');
      const query = new URL(request.url).searchParams;
      const items = [...services.values()]
        .map(s => s.view)
        .filter(
          v =>
            !query.has('entityRef') || v.entityRef === query.get('entityRef'),
        )
        .filter(v => !query.has('team') || v.team === query.get('team'))
        .filter(v => !query.has('status') || v.status === query.get('status'))
        .reverse();
      return HttpResponse.json({ items } as unknown as JsonBodyType);
    }),

    http.get(`${GPU_BASE_URL}/services/:id`, async ({ request, params }) => {
      await record(request, `/services/${params.id}`);
      const { service, error } = findService(String(params.id));
      return (
        error ??
        HttpResponse.json({
          ...service.view,
          manifests: service.manifests,
        } as JsonBodyType)
      );
    }),

    http.post(
      `${GPU_BASE_URL}/services/:id/confirm`,
      async ({ request, params }) => {
        const confirmBody = await record(
          request,
          `/services/${params.id}/confirm`,
        );
        const { service, error } = findService(String(params.id));
        if (error) return error;
        const { status, confirmBy, name } = service.view;
        if (status === 'deleting' || status === 'deleted') {
          return errorResponse(
            409,
            'ConflictError',
            `Service '${name}' is ${status} and can no longer be confirmed${
              confirmBy && Date.parse(confirmBy) <= Date.now()
                ? `: it was not confirmed by ${confirmBy}`
                : ''
            }`,
          );
        }
        if (service.pendingChange) {
          // As the backend: the template run confirms the change that is pending until its request is merged.
          const url: string | undefined = confirmBody?.pullRequestUrl;
          if (
            url &&
            service.pendingChange.url &&
            url !== service.pendingChange.url
          ) {
            return errorResponse(
              409,
              'ConflictError',
              `The pending change of service '${name}' already follows pull request ${service.pendingChange.url}`,
            );
          }
          service.pendingChange = url ? { url } : undefined;
          return HttpResponse.json(service.view as unknown as JsonBodyType);
        }
        if (confirmBy) {
          const { confirmBy: _, ...confirmed } = service.view;
          service.view = { ...confirmed, updatedAt: new Date().toISOString() };
        }
        return HttpResponse.json(service.view as unknown as JsonBodyType);
      },
    ),

    http.post(
      `${GPU_BASE_URL}/services/:id/retry`,
      async ({ request, params }) => {
        await record(request, `/services/${params.id}/retry`);
        const { service, error } = findService(String(params.id));
        if (error) return error;
        const { view } = service;
        const ended = view.retriableEnd;
        if (!ended) {
          // This fake never fails an apply: only a GitOps service whose pull request ended unmerged can be retried.
          return errorResponse(
            409,
            'ConflictError',
            view.mode === 'gitops'
              ? `Service ${view.name} is ${view.status} (${view.reason}); only a failed service, or a GitOps service whose pull request was closed without merging, not merged in time or never confirmed, can be retried`
              : `Service ${view.id} is ${view.status}; only a failed service can be retried`,
          );
        }
        const live = [...services.values()].find(
          s =>
            s !== service &&
            s.view.namespace === view.namespace &&
            s.view.name === view.name &&
            !['deleted', 'rejected'].includes(s.view.status),
        );
        if (live) {
          return errorResponse(
            409,
            'ConflictError',
            `A live service named '${view.name}' exists in namespace '${view.namespace}' (${live.view.id}); ${view.name} cannot be retried beside it`,
          );
        }
        let retried: FakeService;
        try {
          retried = newService(view.id, {
            request: view.request,
            entityRef: view.entityRef,
            mode: 'gitops',
            provisional: true,
          });
        } catch (caught) {
          return errorResponse(400, 'InputError', (caught as Error).message);
        }
        if (retried.reservation === 'pending') {
          return errorResponse(
            409,
            'ConflictError',
            `Retrying '${
              view.name
            }' would need the platform team's approval: ${retried.view
              .approval!.reasons.map(r => r.message)
              .join(
                '; ',
              )}. Nothing is reserved; request the service anew with the creation template to ask for approval`,
          );
        }
        const why = {
          closed: `its pull request ${
            view.pullRequest?.url ?? ''
          } was closed without merging`,
          expired: `its pull request ${
            view.pullRequest?.url ?? ''
          } was not merged in time`,
          unconfirmed: `its pull request was never confirmed (the template run that opened it did not finish by ${view.confirmBy})`,
        }[ended];
        const { pullRequest: _, ...fresh } = retried.view;
        service.view = {
          ...fresh,
          statusReason: `Retried after ${why}: quota reserved again and rendered for GitOps; publish the manifests in a new pull request and confirm it by ${retried.view.confirmBy}`,
          generation: view.generation + 1,
          createdBy: view.createdBy,
          createdAt: view.createdAt,
        };
        service.manifests = retried.manifests;
        service.reservation = 'held';
        service.gpuEquivalents = retried.gpuEquivalents;
        service.monthlyCostMicros = retried.monthlyCostMicros;
        return HttpResponse.json(service.view as unknown as JsonBodyType);
      },
    ),

    http.patch(`${GPU_BASE_URL}/services/:id`, async ({ request, params }) => {
      const body = await record(request, `/services/${params.id}`);
      const { service, error } = findService(String(params.id));
      if (error) return error;
      if (['deleted', 'deleting', 'rejected'].includes(service.view.status)) {
        return errorResponse(
          409,
          'ConflictError',
          `Service '${service.view.name}' is ${service.view.status} and cannot be changed`,
        );
      }
      if (service.pendingChange) {
        // As the backend: one change at a time while one is pending until its pull request is merged.
        return errorResponse(
          409,
          'ConflictError',
          `Service '${service.view.name}' has a change (generation ${
            service.view.generation
          }) ${
            service.pendingChange.url
              ? `waiting for its pull request ${service.pendingChange.url} to be merged; merge or close that request first`
              : 'waiting for the template run that made it to record its pull request'
          }`,
        );
      }
      if (body?.provisional && service.view.mode !== 'gitops') {
        return errorResponse(
          400,
          'InputError',
          `Service ${service.view.name} is in ${service.view.mode} mode: only a change of a GitOps service is pending until its pull request is merged (provisional)`,
        );
      }
      const change = Object.fromEntries(
        ['tier', 'pool', 'replicas', 'model']
          .filter(key => body?.[key] !== undefined)
          .map(key => [key, body[key]]),
      );
      try {
        const changedRequest = validateServiceRequest(platform, {
          ...service.view.request,
          ...change,
        });
        // Weighed as the store weighs a change: without the reservation it replaces.
        const own = service.reservation;
        service.reservation = 'released';
        let changed: FakeService;
        try {
          changed = newService(service.view.id, {
            request: changedRequest,
            entityRef: service.view.entityRef,
            mode: service.view.mode === 'gitops' ? 'gitops' : undefined,
          });
        } finally {
          service.reservation = own;
        }
        const now = new Date().toISOString();
        if (body?.dryRun) {
          // As the backend's dry-run change: what it would record, nothing changed.
          const pendingApproval = changed.reservation === 'pending';
          const { confirmBy: _, ...view } = changed.view;
          return HttpResponse.json({
            ...view,
            ...(pendingApproval
              ? {
                  status: 'pending-approval',
                  reason: 'AwaitingApproval',
                  approval: {
                    ...changed.view.approval!,
                    id: 'dry-run',
                    kind: 'change',
                  },
                }
              : { status: 'approved', reason: 'DryRun' }),
            generation: service.view.generation + 1,
            createdBy: service.view.createdBy,
            createdAt: service.view.createdAt,
            updatedAt: now,
            manifests: changed.manifests,
          } as unknown as JsonBodyType);
        }
        if (changed.reservation === 'pending') {
          // Unchanged, with the pending approval of the change.
          service.view = {
            ...service.view,
            approval: {
              ...changed.view.approval!,
              kind: 'change',
            },
            updatedAt: now,
          };
          return HttpResponse.json(service.view as unknown as JsonBodyType);
        }
        const { confirmBy: _, ...view } = changed.view;
        service.view = {
          ...view,
          ...(service.view.confirmBy
            ? { confirmBy: service.view.confirmBy }
            : {}),
          generation: service.view.generation + 1,
          createdBy: service.view.createdBy,
          createdAt: service.view.createdAt,
          updatedAt: now,
        };
        if (body?.provisional) service.pendingChange = {};
        service.manifests = changed.manifests;
        service.gpuEquivalents = changed.gpuEquivalents;
        service.monthlyCostMicros = changed.monthlyCostMicros;
        return HttpResponse.json(service.view as unknown as JsonBodyType);
      } catch (caught) {
        return errorResponse(400, 'InputError', (caught as Error).message);
      }
    }),

    http.delete(`${GPU_BASE_URL}/services/:id`, async ({ request, params }) => {
      await record(request, `/services/${params.id}`);
      const { service, error } = findService(String(params.id));
      if (error) return error;
      const readBack = options.gitopsReadBack;
      if (
        readBack &&
        service.view.mode === 'gitops' &&
        service.manifests.length > 0 &&
        !['deleted', 'deleting'].includes(service.view.status)
      ) {
        // As the backend's decommission of a GitOps service on a cluster it reads: the quota stays held.
        service.view = {
          ...service.view,
          status: 'deleting',
          reason: 'AwaitingPrune',
          statusReason: `Waiting for the GitOps controller to remove its objects from cluster ${readBack.cluster} (remove its directory from the repository); quota stays held until they are gone`,
          updatedAt: new Date().toISOString(),
        };
      } else if (
        service.view.status !== 'deleted' &&
        service.view.reason !== 'AwaitingPrune'
      ) {
        service.view = withRetriableEnd({
          ...service.view,
          status: 'deleted',
          reason: 'Deleted',
          statusReason:
            service.view.mode === 'gitops'
              ? 'Deleted and quota released; remove its manifests from the GitOps repository to stop it'
              : 'Deleted (nothing was applied)',
          updatedAt: new Date().toISOString(),
        });
        service.reservation = 'released';
      }
      return HttpResponse.json(service.view as unknown as JsonBodyType);
    }),
  ];

  return {
    handlers,
    requests,
    platform,
    /** GPU-equivalents a team holds per pool, as `GET /teams/:team/quota` reports `reservedGpuEquivalents`. */
    heldGpuEquivalents(team: string): Record<string, number> {
      const held: Record<string, number> = {};
      for (const s of services.values()) {
        if (s.view.team === team && s.reservation === 'held') {
          held[s.view.placement.pool] =
            (held[s.view.placement.pool] ?? 0) + s.gpuEquivalents;
        }
      }
      return held;
    },
    /** Records a service as `POST /services` would, with a chosen id. */
    seed(
      body: {
        request: ServiceRequest;
        entityRef?: string;
        mode?: 'gitops';
        provisional?: boolean;
      },
      id: string = randomUUID(),
    ): GpuServiceView {
      const service = newService(id, body);
      services.set(id, service);
      return service.view;
    },
    /** The GitOps controller has pruned a decommissioned service's objects: deleted, quota released. */
    prune(id: string) {
      const service = services.get(id)!;
      service.view = {
        ...service.view,
        status: 'deleted',
        reason: 'Deleted',
        statusReason: `Deleted: the GitOps controller removed its objects from cluster ${options.gitopsReadBack?.cluster}; quota released`,
      };
      service.reservation = 'released';
    },
    /**
     * As the backend's GitOps follower: the service's pull request (`url`) was closed without merging (`closed`) or not
     * merged in time (`expired`): deleted, its quota released (rolled back).
     */
    endPullRequest(id: string, url: string, how: 'closed' | 'expired') {
      const service = services.get(id)!;
      service.view = withRetriableEnd({
        ...service.view,
        status: 'deleted',
        reason: how === 'closed' ? 'PullRequestClosed' : 'PullRequestExpired',
        statusReason:
          how === 'closed'
            ? `Its pull request ${url} was closed without merging: deleted and quota released`
            : `Its pull request ${url} was not merged in time: closed, deleted and quota released`,
        pullRequest: { url, number: Number(url.split('/').pop()), state: how },
        updatedAt: new Date().toISOString(),
      });
      service.reservation = 'released';
    },
    /** An approver rejects the service's pending request: nothing stays reserved. */
    reject(id: string, comment: string) {
      const service = services.get(id)!;
      service.view = {
        ...service.view,
        status: 'rejected',
        statusReason: `Rejected: ${comment}`,
        ...(service.view.approval
          ? {
              approval: {
                ...service.view.approval,
                state: 'rejected' as const,
                comment,
              },
            }
          : {}),
      };
      service.reservation = 'released';
    },
    reset() {
      requests.length = 0;
      services.clear();
    },
  };
}
