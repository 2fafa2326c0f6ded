import { AuditorService, HttpAuthService } from '@backstage/backend-plugin-api';
import { AuthorizedGovernance } from '../authorization/AuthorizedGovernance';
import { audited } from './audited';
import { DocHandler, GpuRouter, send, callerOf } from './types';

/** `/approvals`: the queue of requests outside policy, and the platform team's decisions. */
export function registerApprovalsRoutes(
  router: GpuRouter,
  options: {
    httpAuth: HttpAuthService;
    auditor: AuditorService;
    governance: AuthorizedGovernance;
  },
): void {
  const { httpAuth, auditor, governance } = options;
  const credentialsOf = callerOf(httpAuth);

  router.get('/approvals', async (req, res) => {
    const credentials = await credentialsOf(req);
    send(res, await governance.listApprovals(credentials, req.query));
  });

  // Approve and reject take the same path parameter and body (DecisionBody).
  const decide =
    (
      decision: 'approve' | 'reject',
    ): DocHandler<'/approvals/{id}/approve', 'post'> =>
    async (req, res) => {
      const credentials = await credentialsOf(req);
      const { id } = req.params;
      // No body (or an empty one) decides without comment and without going over quota.
      const body = req.body ?? {};
      send(
        res,
        await audited(
          auditor,
          req,
          'approval-decide',
          {
            actionType: decision,
            approvalId: id,
            allowOverQuota: body.allowOverQuota === true,
          },
          () => governance.decide(credentials, id, decision, body),
        ),
      );
    };
  router.post('/approvals/:id/approve', decide('approve'));
  router.post('/approvals/:id/reject', decide('reject'));
}
