import { HttpAuthService } from '@backstage/backend-plugin-api';
import { InputError } from '@backstage/errors';
import { AuthorizedUsage } from '../authorization/AuthorizedUsage';
import { focusCsv } from '../usage/export/focusCsv';
import { GpuRouter, send, callerOf } from './types';

/**
 * Usage and cost: `GET /services/:id/usage`, `GET /services/:id/cost`, `GET /teams/:team/cost`, `GET /overview`,
 * each with an optional `window` (`1h|6h|24h|7d|30d` or an ISO 8601 duration from 5 minutes to 90 days, parsed by
 * the usage service); `GET /overview` answers the totals and each leaderboard's first page, `GET /overview/services`
 * a page of a leaderboard; `GET /cost/export`, the daily FOCUS rows as CSV. Prometheus failures never fail these routes: responses carry allocation cost and a `metrics`
 * status saying why usage is missing. `GET /overview?cluster=` narrows the overview to one of `clusters` (the configured
 * clusters' names); any other name is a 400.
 */
export function registerUsageRoutes(
  router: GpuRouter,
  options: {
    httpAuth: HttpAuthService;
    usage: AuthorizedUsage;
    /** The configured clusters' names (`gpu.clusters[].name`); none when omitted. */
    clusters?: readonly string[];
  },
): void {
  const { httpAuth, usage, clusters = [] } = options;
  const credentialsOf = callerOf(httpAuth);

  router.get('/services/:id/usage', async (req, res) => {
    const credentials = await credentialsOf(req);
    send(
      res,
      await usage.serviceUsage(credentials, req.params.id, req.query.window),
    );
  });

  router.get('/services/:id/cost', async (req, res) => {
    const credentials = await credentialsOf(req);
    send(
      res,
      await usage.serviceCost(credentials, req.params.id, req.query.window),
    );
  });

  router.get('/teams/:team/cost', async (req, res) => {
    const credentials = await credentialsOf(req);
    send(
      res,
      await usage.teamCost(credentials, req.params.team, req.query.window),
    );
  });

  const knownCluster = (cluster: string | undefined) => {
    if (cluster !== undefined && !clusters.includes(cluster)) {
      throw new InputError(
        clusters.length === 0
          ? `Unknown cluster '${cluster}': no cluster is configured (gpu.clusters)`
          : `Unknown cluster '${cluster}': the configured clusters are ${clusters.join(
              ', ',
            )}`,
      );
    }
    return cluster;
  };

  router.get('/overview', async (req, res) => {
    const credentials = await credentialsOf(req);
    const { window, cluster, top } = req.query;
    send(
      res,
      await usage.overviewSummary(
        credentials,
        window,
        knownCluster(cluster),
        top,
      ),
    );
  });

  router.get('/overview/services', async (req, res) => {
    const credentials = await credentialsOf(req);
    const { window, cluster, ...query } = req.query;
    send(
      res,
      await usage.overviewServices(
        credentials,
        window,
        knownCluster(cluster),
        query,
      ),
    );
  });

  router.get('/cost/export', async (req, res) => {
    const credentials = await credentialsOf(req);
    const { firstDay, lastDay } = req.query;
    const exported = await usage.costExport(credentials, firstDay, lastDay);
    res
      .status(200)
      .type('text/csv; charset=utf-8')
      .attachment(
        `gpu-cost-focus-${exported.firstDay}-to-${exported.lastDay}.csv`,
      )
      .send(focusCsv(exported.rows));
  });
}
