import { AuditorService, HttpAuthService } from '@backstage/backend-plugin-api';
import express from 'express';
import Router from 'express-promise-router';
import { z } from 'zod';
import { AuthorizedGovernance } from '../authorization/AuthorizedGovernance';
import { audited } from './audited';
import { pageQuery, parse, teamName } from './parse';

const listQuery = z
  .object({
    state: z.enum(['pending', 'approved', 'rejected']).optional(),
    team: teamName.optional(),
    search: z.string().min(1).max(100).optional(),
    ...pageQuery,
  })
  .strict();
const decisionBody = z
  .object({
    comment: z.string().max(2000).optional(),
    allowOverQuota: z.boolean().optional(),
  })
  .strict();
const approvalId = z.string().uuid('an approval id (UUID)');

/** `/approvals`: the queue of requests outside policy, and the platform team's decisions. */
export function createApprovalsRoutes(options: {
  httpAuth: HttpAuthService;
  auditor: AuditorService;
  governance: AuthorizedGovernance;
}): express.Router {
  const { httpAuth, auditor, governance } = options;
  const router = Router();

  router.get('/approvals', async (req, res) => {
    const credentials = await httpAuth.credentials(req, {
      allow: ['user', 'service'],
    });
    res.json(
      await governance.listApprovals(
        credentials,
        parse(listQuery, req.query, 'query'),
      ),
    );
  });

  router.post('/approvals/:id/:decision(approve|reject)', async (req, res) => {
    const credentials = await httpAuth.credentials(req, {
      allow: ['user', 'service'],
    });
    const id = parse(approvalId, req.params.id, 'approval id');
    const decision = req.params.decision as 'approve' | 'reject';
    const body = parse(decisionBody, req.body, 'decision');
    res.json(
      await audited(
        auditor,
        req,
        'approval-decide',
        {
          actionType: decision,
          approvalId: id,
          allowOverQuota: body.allowOverQuota === true,
        },
        () => governance.decide(credentials, id, decision, body),
      ),
    );
  });

  return router;
}
