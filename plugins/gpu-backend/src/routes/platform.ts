import { HttpAuthService } from '@backstage/backend-plugin-api';
import {
  Platform,
  PlatformResponse,
  validateServiceRequest,
} from '@internal/backstage-plugin-gpu-common';
import express from 'express';
import Router from 'express-promise-router';
import { ClusterTarget } from '../cluster';
import { QuoteService } from '../services/QuoteService';

/** `/health`, `/platform` (pools, prices, tiers, environments, teams, clusters) and `/quote`: open to everyone signed in. */
export function createPlatformRoutes(options: {
  httpAuth: HttpAuthService;
  platform: Platform;
  clusters: ClusterTarget[];
  quotes: QuoteService;
}): express.Router {
  const { httpAuth, platform, clusters, quotes } = options;
  const router = Router();

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
    res.json(await quotes.quote(validateServiceRequest(platform, req.body)));
  });

  return router;
}
