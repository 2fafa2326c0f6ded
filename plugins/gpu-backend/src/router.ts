import {
  BackstageCredentials,
  HttpAuthService,
  PermissionsService,
  UserInfoService,
} from '@backstage/backend-plugin-api';
import { InputError, NotAllowedError } from '@backstage/errors';
import {
  AuthorizeResult,
  BasicPermission,
} from '@backstage/plugin-permission-common';
import {
  gpuApprovePermission,
  gpuQuotaReadPermission,
  gpuQuotaUpdatePermission,
  gpuServiceCreatePermission,
  gpuServiceDeletePermission,
  gpuServiceUpdatePermission,
  GpuServiceDetail,
  parseUsd,
  Platform,
  PlatformResponse,
  validateServiceRequest,
} from '@internal/backstage-plugin-gpu-common';
import express from 'express';
import Router from 'express-promise-router';
import { z } from 'zod';
import { ClusterTarget } from './cluster';
import { GpuStore, SERVICE_STATUSES, ServiceRecord } from './database';
import { QuoteService } from './services/QuoteService';
import { ServiceManager } from './services/ServiceManager';
import { ServiceStatusRefresher } from './services/ServiceStatusRefresher';
import { createUsageRouter } from './routes/usageRouter';
import { UsageService } from './usage';
import {
  toApprovalView,
  toServiceView,
  toServiceViewFromLedger,
} from './services/toServiceView';

/** Collaborators of the gpu REST API. */
export interface RouterOptions {
  httpAuth: HttpAuthService;
  permissions: PermissionsService;
  userInfo: UserInfoService;
  platform: Platform;
  quotes: QuoteService;
  store: GpuStore;
  services: ServiceManager;
  /** Reads the cluster status of a service for `GET /services/:id`. */
  statuses: ServiceStatusRefresher;
  clusters: ClusterTarget[];
  /** Usage and cost (Prometheus metrics, cost, recommendations); its routes are mounted when given. */
  usage?: UsageService;
}

const createBody = z.object({
  request: z.record(z.string(), z.unknown()),
  entityRef: z.string().min(1).optional(),
  requestKey: z.string().min(1).max(200).optional(),
  mode: z.literal('gitops').optional(),
  dryRun: z.boolean().optional(),
});
const updateBody = z
  .object({
    tier: z.enum(['dedicated', 'mig', 'mps', 'time-sliced']).optional(),
    pool: z.string().min(1).optional(),
    replicas: z.number().int().min(1).max(64).optional(),
    model: z.string().min(1).optional(),
  })
  .strict()
  .refine(
    b => Object.keys(b).length > 0,
    'Nothing to change: give tier, pool, replicas or model',
  );
const quotaBody = z
  .object({
    pools: z.record(z.string(), z.number().min(0).max(100_000)),
    monthlyBudget: z.union([z.string(), z.number()]),
  })
  .strict();
const listQuery = z.object({
  team: z.string().optional(),
  entityRef: z.string().optional(),
  status: z.enum(SERVICE_STATUSES as [string, ...string[]]).optional(),
});
const decisionBody = z
  .object({
    comment: z.string().max(2000).optional(),
    allowOverQuota: z.boolean().optional(),
  })
  .strict();
const auditQuery = z.object({
  team: z.string().optional(),
  subjectId: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
  cursor: z.string().optional(),
});

function parse<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value ?? {});
  if (!result.success) {
    const issues = result.error.issues
      .map(i => `${i.path.length ? i.path.join('.') : what}: ${i.message}`)
      .join('; ');
    throw new InputError(`Invalid ${what}: ${issues}`);
  }
  return result.data;
}

/** Who acted, for the audit trail. */
function actorOf(credentials: BackstageCredentials): string {
  const principal = credentials.principal as {
    type: string;
    userEntityRef?: string;
    subject?: string;
  };
  return principal.type === 'user'
    ? principal.userEntityRef!
    : `service:${principal.subject ?? 'unknown'}`;
}

/** Creates the `/api/gpu` router. */
export async function createRouter(
  options: RouterOptions,
): Promise<express.Router> {
  const {
    httpAuth,
    permissions,
    userInfo,
    platform,
    quotes,
    store,
    services,
    statuses,
    clusters,
  } = options;
  const router = Router();
  router.use(express.json({ limit: '256kb' }));
  if (options.usage) {
    router.use(createUsageRouter({ httpAuth, usage: options.usage }));
  }

  async function authorize(req: express.Request, permission: BasicPermission) {
    const credentials = await httpAuth.credentials(req, {
      allow: ['user', 'service'],
    });
    const [decision] = await permissions.authorize([{ permission }], {
      credentials,
    });
    if (decision.result !== AuthorizeResult.ALLOW) {
      throw new NotAllowedError(`You are not allowed to ${permission.name}`);
    }
    return credentials;
  }

  /** Users may only act for teams they belong to; other backends act on a user's behalf or as themselves. */
  async function assertMember(credentials: BackstageCredentials, team: string) {
    if ((credentials.principal as { type: string }).type !== 'user') return;
    const info = await userInfo.getUserInfo(
      credentials as BackstageCredentials<{
        type: 'user';
        userEntityRef: string;
      }>,
    );
    if (!info.ownershipEntityRefs.includes(`group:default/${team}`)) {
      throw new NotAllowedError(
        `${info.userEntityRef} is not a member of team ${team} and cannot deploy to its namespaces`,
      );
    }
  }

  async function view(service: ServiceRecord) {
    const [reservations, approvals] = await Promise.all([
      store.listReservations(service.id),
      store.listApprovals({ serviceId: service.id }),
    ]);
    return toServiceViewFromLedger(service, reservations, approvals);
  }

  router.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });

  router.get('/platform', async (req, res) => {
    await httpAuth.credentials(req, { allow: ['user', 'service'] });
    const body: PlatformResponse = {
      platform,
      clusters: clusters
        .filter(c => c.name)
        .map(c => ({ name: c.name!, mode: c.mode })),
    };
    res.json(body);
  });

  router.post('/quote', async (req, res) => {
    await httpAuth.credentials(req, { allow: ['user', 'service'] });
    const request = validateServiceRequest(platform, req.body);
    res.json(await quotes.quote(request));
  });

  router.post('/services', async (req, res) => {
    const credentials = await authorize(req, gpuServiceCreatePermission);
    const body = parse(createBody, req.body, 'service request');
    const team = (body.request as { team?: unknown }).team;
    if (typeof team === 'string') await assertMember(credentials, team);
    const createServiceBody = {
      request: body.request as any,
      entityRef: body.entityRef,
      requestKey: body.requestKey,
      mode: body.mode,
    };
    if (body.dryRun) {
      const preview = await services.preview(
        createServiceBody,
        actorOf(credentials),
      );
      res.json({
        ...toServiceView(preview.service, preview.reservation),
        manifests: preview.service.manifests ?? [],
      });
      return;
    }
    const result = await services.create(
      createServiceBody,
      actorOf(credentials),
    );
    res.status(result.created ? 201 : 200).json(await view(result.service));
  });

  router.get('/services', async (req, res) => {
    await httpAuth.credentials(req, { allow: ['user', 'service'] });
    const query = parse(listQuery, req.query, 'query');
    const listings = await store.listServicesWithReservations({
      team: query.team,
      entityRef: query.entityRef,
      status: query.status as ServiceRecord['status'] | undefined,
    });
    res.json({
      items: listings.map(l =>
        toServiceViewFromLedger(l.service, l.reservations, l.approvals),
      ),
    });
  });

  router.get('/services/:id', async (req, res) => {
    await httpAuth.credentials(req, { allow: ['user', 'service'] });
    // In apply mode, read live from the cluster (bounded by the status read timeout; a cluster that cannot be read
    // gives the stored status and `clusterStatus.error`), storing the status it implies.
    const { service, clusterStatus } = await statuses.refreshStatus(
      req.params.id,
    );
    const detail: GpuServiceDetail = {
      ...(await view(service)),
      manifests: (service.manifests ?? []) as GpuServiceDetail['manifests'],
      ...(clusterStatus ? { clusterStatus } : {}),
    };
    res.json(detail);
  });

  router.patch('/services/:id', async (req, res) => {
    const credentials = await authorize(req, gpuServiceUpdatePermission);
    const change = parse(updateBody, req.body, 'change');
    const current = await services.get(req.params.id);
    await assertMember(credentials, current.team);
    const result = await services.update(
      req.params.id,
      change,
      actorOf(credentials),
    );
    res.json(await view(result.service));
  });

  router.post('/services/:id/retry', async (req, res) => {
    const credentials = await authorize(req, gpuServiceUpdatePermission);
    const current = await services.get(req.params.id);
    await assertMember(credentials, current.team);
    res.json(
      await view(await services.retry(req.params.id, actorOf(credentials))),
    );
  });

  router.delete('/services/:id', async (req, res) => {
    const credentials = await authorize(req, gpuServiceDeletePermission);
    const current = await services.get(req.params.id);
    await assertMember(credentials, current.team);
    res.json(
      await view(await services.teardown(req.params.id, actorOf(credentials))),
    );
  });

  router.get('/teams/:team/quota', async (req, res) => {
    await authorize(req, gpuQuotaReadPermission);
    const quota = await store.getQuota(req.params.team);
    if (!quota) {
      throw new InputError(
        `Unknown team ${req.params.team}; teams with a quota: ${platform.teams
          .map(t => t.name)
          .join(', ')}`,
      );
    }
    res.json(quota);
  });

  router.put('/teams/:team/quota', async (req, res) => {
    const credentials = await authorize(req, gpuQuotaUpdatePermission);
    const body = parse(quotaBody, req.body, 'quota');
    if (!platform.teams.some(t => t.name === req.params.team)) {
      throw new InputError(
        `Unknown team ${req.params.team}; allowed: ${platform.teams
          .map(t => t.name)
          .join(', ')}`,
      );
    }
    const pools = new Set(platform.pools.map(p => p.name));
    const unknown = Object.keys(body.pools).filter(p => !pools.has(p));
    if (unknown.length) {
      throw new InputError(
        `Unknown pool(s) ${unknown.join(', ')}; allowed: ${[...pools].join(
          ', ',
        )}`,
      );
    }
    let monthlyBudgetMicros: number;
    try {
      monthlyBudgetMicros = parseUsd(body.monthlyBudget);
    } catch (error) {
      throw new InputError(
        `Invalid monthlyBudget: ${(error as Error).message}`,
      );
    }
    if (monthlyBudgetMicros < 0) {
      throw new InputError('Invalid monthlyBudget: must be zero or more');
    }
    res.json(
      await store.putQuota({
        team: req.params.team,
        quota: { pools: body.pools, monthlyBudgetMicros },
        actor: actorOf(credentials),
      }),
    );
  });

  router.get('/approvals', async (req, res) => {
    await httpAuth.credentials(req, { allow: ['user', 'service'] });
    const state = parse(
      z.object({
        state: z.enum(['pending', 'approved', 'rejected']).optional(),
      }),
      req.query,
      'query',
    ).state;
    const approvals = await store.listApprovals(state ? { state } : undefined);
    res.json({ items: approvals.map(toApprovalView) });
  });

  router.post('/approvals/:id/:decision(approve|reject)', async (req, res) => {
    const credentials = await authorize(req, gpuApprovePermission);
    const { comment, allowOverQuota } = parse(
      decisionBody,
      req.body,
      'decision',
    );
    const decision = req.params.decision as 'approve' | 'reject';
    const actor = actorOf(credentials);
    // Granting beyond quota or budget is an explicit choice (`allowOverQuota: true`); without it an approval
    // that does not fit is refused with 409.
    const result = await store.decideApproval({
      id: req.params.id,
      decision,
      actor,
      comment,
      allowOverQuota: decision === 'approve' && allowOverQuota === true,
    });
    let service = await services.get(result.approval.serviceId);
    if (decision === 'approve' && service.status === 'approved') {
      service = await services.deploy(service, actor);
    }
    res.json({
      approval: toApprovalView(result.approval),
      service: await view(service),
    });
  });

  router.get('/clusters/drift', async (req, res) => {
    await httpAuth.credentials(req, { allow: ['user', 'service'] });
    res.json({ items: await store.listClusterDrift() });
  });

  router.get('/audit', async (req, res) => {
    await authorize(req, gpuQuotaReadPermission);
    const query = parse(auditQuery, req.query, 'query');
    res.json(await store.listAuditEvents(query));
  });

  return router;
}
