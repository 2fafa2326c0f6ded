import { HttpAuthService } from '@backstage/backend-plugin-api';
import { AuthorizedPlatformChecks } from '../authorization/AuthorizedPlatformChecks';
import { callerOf, GpuRouter, send } from './types';

/** `/platform/checks`: the common GPU-cluster mistakes in the config and on the clusters Backstage applies to. */
export function registerPlatformChecksRoutes(
  router: GpuRouter,
  options: { httpAuth: HttpAuthService; checks: AuthorizedPlatformChecks },
): void {
  const { httpAuth, checks } = options;
  const credentialsOf = callerOf(httpAuth);

  router.get('/platform/checks', async (req, res) => {
    send(res, await checks.run(await credentialsOf(req)));
  });
}
