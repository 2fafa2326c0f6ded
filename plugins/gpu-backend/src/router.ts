import { HttpAuthService } from '@backstage/backend-plugin-api';
import {
  Platform,
  PlatformResponse,
} from '@internal/backstage-plugin-gpu-common';
import express from 'express';
import Router from 'express-promise-router';

/** Collaborators of the gpu REST API. */
export interface RouterOptions {
  httpAuth: HttpAuthService;
  platform: Platform;
}

/** Creates the `/api/gpu` router. */
export async function createRouter(
  options: RouterOptions,
): Promise<express.Router> {
  const { httpAuth, platform } = options;
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

  return router;
}
