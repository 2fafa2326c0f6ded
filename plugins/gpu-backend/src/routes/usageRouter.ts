import { HttpAuthService } from '@backstage/backend-plugin-api';
import { InputError } from '@backstage/errors';
import express from 'express';
import Router from 'express-promise-router';
import { z } from 'zod';
import { UsageService } from '../usage/UsageService';

const serviceId = z.string().uuid();
const teamName = z
  .string()
  .regex(
    /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/,
    'a team name (DNS-1123 label)',
  );
const windowQuery = z
  .object({ window: z.string().max(32).optional() })
  .strict();

function check<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new InputError(
      `Invalid ${what}: ${result.error.issues
        .map(i => `${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message}`)
        .join('; ')}`,
    );
  }
  return result.data;
}

/**
 * Usage and cost routes of the gpu API, readable by any authenticated user or service:
 * `GET /services/:id/usage`, `GET /services/:id/cost`, `GET /teams/:team/cost`, `GET /overview`, each with an
 * optional `window` (`1h|6h|24h|7d|30d` or an ISO 8601 duration from 5 minutes to 90 days). Prometheus failures
 * never fail these routes: responses carry allocation cost and a `metrics` status saying why usage is missing.
 */
export function createUsageRouter(options: {
  httpAuth: HttpAuthService;
  usage: UsageService;
}): express.Router {
  const { httpAuth, usage } = options;
  const router = Router();
  const windowOf = (req: express.Request) =>
    check(windowQuery, req.query, 'query').window;

  router.get('/services/:id/usage', async (req, res) => {
    await httpAuth.credentials(req, { allow: ['user', 'service'] });
    const id = check(serviceId, req.params.id, 'service id (expected a UUID)');
    res.json(await usage.serviceUsage(id, windowOf(req)));
  });

  router.get('/services/:id/cost', async (req, res) => {
    await httpAuth.credentials(req, { allow: ['user', 'service'] });
    const id = check(serviceId, req.params.id, 'service id (expected a UUID)');
    res.json(await usage.serviceCost(id, windowOf(req)));
  });

  router.get('/teams/:team/cost', async (req, res) => {
    await httpAuth.credentials(req, { allow: ['user', 'service'] });
    const team = check(teamName, req.params.team, 'team');
    res.json(await usage.teamCost(team, windowOf(req)));
  });

  router.get('/overview', async (req, res) => {
    await httpAuth.credentials(req, { allow: ['user', 'service'] });
    res.json(await usage.overview(windowOf(req)));
  });

  return router;
}
