import { AuditorService, HttpAuthService } from '@backstage/backend-plugin-api';
import { InputError } from '@backstage/errors';
import { parseUsd } from '@gpu-platform/backstage-plugin-gpu-common';
import { QuotaSpec } from '../database';
import { AuthorizedGovernance } from '../authorization/AuthorizedGovernance';
import { QuotaBody } from '../schema/openapi/generated/models';
import { audited } from './audited';
import { GpuRouter, send, callerOf } from './types';

/** The quota of a request body: GPU-equivalents per pool and the budget in micro-dollars. */
function toQuotaSpec(body: QuotaBody): QuotaSpec {
  let monthlyBudgetMicros: number;
  try {
    monthlyBudgetMicros = parseUsd(body.monthlyBudget as string | number);
  } catch (error) {
    throw new InputError(`Invalid monthlyBudget: ${(error as Error).message}`);
  }
  if (monthlyBudgetMicros < 0) {
    throw new InputError('Invalid monthlyBudget: must be zero or more');
  }
  // parseUsd rounds to micro-dollars: a budget above zero that rounds to none would be stored as no budget at all.
  if (
    monthlyBudgetMicros === 0 &&
    /[1-9]/.test(String(body.monthlyBudget).split(/e/i)[0])
  ) {
    throw new InputError(
      `Invalid monthlyBudget: ${body.monthlyBudget} is below the smallest amount, one micro-dollar (0.000001); give 0 or at least that`,
    );
  }
  return { pools: body.pools, monthlyBudgetMicros };
}

/**
 * `/teams/:team/quota`: a team's quota, budget and use; `/quotas`: every team's the caller may read;
 * `/pools/subscription`: every pool's capacity against the sum of the teams' quotas on it.
 */
export function registerQuotaRoutes(
  router: GpuRouter,
  options: {
    httpAuth: HttpAuthService;
    auditor: AuditorService;
    governance: AuthorizedGovernance;
  },
): void {
  const { httpAuth, auditor, governance } = options;
  const credentialsOf = callerOf(httpAuth);

  router.get('/quotas', async (req, res) => {
    const credentials = await credentialsOf(req);
    send(res, { items: await governance.listQuotas(credentials) });
  });

  router.get('/pools/subscription', async (req, res) => {
    const credentials = await credentialsOf(req);
    send(res, await governance.listPoolSubscriptions(credentials));
  });

  router.get('/teams/:team/quota', async (req, res) => {
    const credentials = await credentialsOf(req);
    send(res, await governance.getQuota(credentials, req.params.team));
  });

  router.put('/teams/:team/quota', async (req, res) => {
    const credentials = await credentialsOf(req);
    const { team } = req.params;
    const quota = toQuotaSpec(req.body);
    send(
      res,
      await audited(
        auditor,
        req,
        'quota-mutate',
        { actionType: 'update', team },
        () => governance.putQuota(credentials, team, quota),
      ),
    );
  });
}
