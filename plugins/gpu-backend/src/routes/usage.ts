import { HttpAuthService } from '@backstage/backend-plugin-api';
import express from 'express';
import Router from 'express-promise-router';
import { z } from 'zod';
import { AuthorizedUsage } from '../authorization/AuthorizedUsage';
import { parse, serviceId, teamName } from './parse';

const windowQuery = z
  .object({ window: z.string().max(32).optional() })
  .strict();

/**
 * Usage and cost: `GET /services/:id/usage`, `GET /services/:id/cost`, `GET /teams/:team/cost`, `GET /overview`,
 * each with an optional `window` (`1h|6h|24h|7d|30d` or an ISO 8601 duration from 5 minutes to 90 days).
 * Prometheus failures never fail these routes: responses carry allocation cost and a `metrics` status saying why
 * usage is missing.
 */
export function createUsageRoutes(options: {
  httpAuth: HttpAuthService;
  usage: AuthorizedUsage;
}): express.Router {
  const { httpAuth, usage } = options;
  const router = Router();
  const credentialsOf = (req: express.Request) =>
    httpAuth.credentials(req, { allow: ['user', 'service'] });
  const windowOf = (req: express.Request) =>
    parse(windowQuery, req.query, 'query').window;

  router.get('/services/:id/usage', async (req, res) => {
    const credentials = await credentialsOf(req);
    const id = parse(serviceId, req.params.id, 'service id');
    res.json(await usage.serviceUsage(credentials, id, windowOf(req)));
  });

  router.get('/services/:id/cost', async (req, res) => {
    const credentials = await credentialsOf(req);
    const id = parse(serviceId, req.params.id, 'service id');
    res.json(await usage.serviceCost(credentials, id, windowOf(req)));
  });

  router.get('/teams/:team/cost', async (req, res) => {
    const credentials = await credentialsOf(req);
    const team = parse(teamName, req.params.team, 'team');
    res.json(await usage.teamCost(credentials, team, windowOf(req)));
  });

  router.get('/overview', async (req, res) => {
    const credentials = await credentialsOf(req);
    res.json(await usage.overview(credentials, windowOf(req)));
  });

  return router;
}
