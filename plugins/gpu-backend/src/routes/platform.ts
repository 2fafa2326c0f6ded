import { HttpAuthService } from '@backstage/backend-plugin-api';
import {
  compactQuote,
  Platform,
  PlatformResponse,
  validateServiceRequest,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { AuthorizedQuotes } from '../authorization/AuthorizedQuotes';
import { ClusterTarget } from '../cluster';
import { GpuRouter, callerOf } from './types';

/**
 * `/health`, `/platform` (pools, prices, tiers, environments, teams, clusters) and `/quote`: open to everyone signed
 * in; a quote shows the team's quota and budget only to callers who may read them (`AuthorizedQuotes`); with
 * `?detail=summary` it is the `CompactQuote` (a row per tier and pool), else the whole quote.
 */
export function registerPlatformRoutes(
  router: GpuRouter,
  options: {
    httpAuth: HttpAuthService;
    platform: Platform;
    clusters: ClusterTarget[];
    quotes: AuthorizedQuotes;
  },
): void {
  const { httpAuth, platform, clusters, quotes } = options;
  const credentialsOf = callerOf(httpAuth);

  router.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });

  router.get('/platform', async (req, res) => {
    await credentialsOf(req);
    const body: PlatformResponse = {
      platform,
      clusters: clusters
        .filter(c => c.name)
        .map(c => ({
          name: c.name!,
          mode: c.mode,
          ...(c.labels && { labels: c.labels }),
        })),
    };
    res.json(body);
  });

  router.post('/quote', async (req, res) => {
    const credentials = await credentialsOf(req);
    // The spec checked the shape; the platform decides the rest (known team, model and pool, tier policy, ...).
    const quote = await quotes.quote(
      credentials,
      validateServiceRequest(platform, req.body),
    );
    res.json(req.query.detail === 'summary' ? compactQuote(quote) : quote);
  });
}
