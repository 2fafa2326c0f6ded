import { HttpAuthService } from '@backstage/backend-plugin-api';
import { AuthorizedGovernance } from '../authorization/AuthorizedGovernance';
import { GpuRouter, send, callerOf } from './types';

/** `/audit` (the plugin's audit trail) and `/clusters/drift` (the last Kueue reconciliation of each cluster). */
export function registerAuditRoutes(
  router: GpuRouter,
  options: {
    httpAuth: HttpAuthService;
    governance: AuthorizedGovernance;
  },
): void {
  const { httpAuth, governance } = options;
  const credentialsOf = callerOf(httpAuth);

  router.get('/audit', async (req, res) => {
    const credentials = await credentialsOf(req);
    // since and until are checked as times by the store (an InputError naming them).
    send(res, await governance.listAudit(credentials, req.query));
  });

  router.get('/clusters/drift', async (req, res) => {
    const credentials = await credentialsOf(req);
    send(res, { items: await governance.listDrift(credentials) });
  });
}
