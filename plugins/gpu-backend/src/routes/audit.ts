import { HttpAuthService } from '@backstage/backend-plugin-api';
import express from 'express';
import Router from 'express-promise-router';
import { z } from 'zod';
import { AuthorizedGovernance } from '../authorization/AuthorizedGovernance';
import { parse, teamName } from './parse';

const auditQuery = z
  .object({
    team: teamName.optional(),
    subjectId: z.string().min(1).max(100).optional(),
    actor: z.string().min(1).max(300).optional(),
    action: z.string().min(1).max(100).optional(),
    since: z.string().min(1).max(40).optional(),
    until: z.string().min(1).max(40).optional(),
    limit: z.coerce.number().int().min(1).max(500).optional(),
    cursor: z
      .string()
      .regex(/^\d+$/, 'the nextCursor of a previous page')
      .optional(),
  })
  .strict();

/** `/audit` (the plugin's audit trail) and `/clusters/drift` (the last Kueue reconciliation of each cluster). */
export function createAuditRoutes(options: {
  httpAuth: HttpAuthService;
  governance: AuthorizedGovernance;
}): express.Router {
  const { httpAuth, governance } = options;
  const router = Router();

  router.get('/audit', async (req, res) => {
    const credentials = await httpAuth.credentials(req, {
      allow: ['user', 'service'],
    });
    res.json(
      await governance.listAudit(
        credentials,
        parse(auditQuery, req.query, 'query'),
      ),
    );
  });

  router.get('/clusters/drift', async (req, res) => {
    const credentials = await httpAuth.credentials(req, {
      allow: ['user', 'service'],
    });
    res.json({ items: await governance.listDrift(credentials) });
  });

  return router;
}
