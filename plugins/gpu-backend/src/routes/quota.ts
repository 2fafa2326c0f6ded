import { AuditorService, HttpAuthService } from '@backstage/backend-plugin-api';
import { InputError } from '@backstage/errors';
import { parseUsd } from '@internal/backstage-plugin-gpu-common';
import express from 'express';
import Router from 'express-promise-router';
import { z } from 'zod';
import { QuotaSpec } from '../database';
import { AuthorizedGovernance } from '../authorization/AuthorizedGovernance';
import { audited } from './audited';
import { parse, teamName } from './parse';

const quotaBody = z
  .object({
    pools: z.record(z.string(), z.number().min(0).max(100_000)),
    monthlyBudget: z.union([z.string(), z.number()]),
  })
  .strict();

/** The quota of a request body: GPU-equivalents per pool and the budget in micro-dollars. */
function toQuotaSpec(body: z.infer<typeof quotaBody>): QuotaSpec {
  let monthlyBudgetMicros: number;
  try {
    monthlyBudgetMicros = parseUsd(body.monthlyBudget);
  } catch (error) {
    throw new InputError(`Invalid monthlyBudget: ${(error as Error).message}`);
  }
  if (monthlyBudgetMicros < 0) {
    throw new InputError('Invalid monthlyBudget: must be zero or more');
  }
  return { pools: body.pools, monthlyBudgetMicros };
}

/** `/teams/:team/quota`: a team's quota, budget and use. */
export function createQuotaRoutes(options: {
  httpAuth: HttpAuthService;
  auditor: AuditorService;
  governance: AuthorizedGovernance;
}): express.Router {
  const { httpAuth, auditor, governance } = options;
  const router = Router();

  router.get('/teams/:team/quota', async (req, res) => {
    const credentials = await httpAuth.credentials(req, {
      allow: ['user', 'service'],
    });
    const team = parse(teamName, req.params.team, 'team');
    res.json(await governance.getQuota(credentials, team));
  });

  router.put('/teams/:team/quota', async (req, res) => {
    const credentials = await httpAuth.credentials(req, {
      allow: ['user', 'service'],
    });
    const team = parse(teamName, req.params.team, 'team');
    const quota = toQuotaSpec(parse(quotaBody, req.body, 'quota'));
    res.json(
      await audited(
        auditor,
        req,
        'quota-mutate',
        { actionType: 'update', team },
        () => governance.putQuota(credentials, team, quota),
      ),
    );
  });

  return router;
}
