import { HttpAuthService } from '@backstage/backend-plugin-api';
import {
  Platform,
  PlatformResponse,
  validateServiceRequest,
} from '@internal/backstage-plugin-gpu-common';
import express from 'express';
import Router from 'express-promise-router';
import { QuoteService } from './services/QuoteService';

/** Collaborators of the gpu REST API. */
export interface RouterOptions {
  httpAuth: HttpAuthService;
  platform: Platform;
  quotes: QuoteService;
}

/** Creates the `/api/gpu` router. */
export async function createRouter(
  options: RouterOptions,
): Promise<express.Router> {
  const { httpAuth, platform, quotes } = options;
  const router = Router();
  router.use(express.json());

  router.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });

  router.get('/platform', async (req, res) => {
    await httpAuth.credentials(req, { allow: ['user', 'service'] });
    const body: PlatformResponse = {
      platform,
      clusters: [],
    };
    res.json(body);
  });

  router.post('/quote', async (req, res) => {
    await httpAuth.credentials(req, { allow: ['user', 'service'] });
    const request = validateServiceRequest(platform, req.body);
    res.json(await quotes.quote(request));
  });

  return router;
}
