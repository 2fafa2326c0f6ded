import {
  ResponseErrorPanel,
  Table,
  TableColumn,
} from '@backstage/core-components';
import { identityApiRef, useApi } from '@backstage/frontend-plugin-api';
import { usePermission } from '@backstage/plugin-permission-react';
import {
  ApprovalDecisionResponse,
  ApprovalView,
  gpuApprovePermission,
  GpuServiceView,
} from '@internal/backstage-plugin-gpu-common';
import Box from '@material-ui/core/Box';
import Button from '@material-ui/core/Button';
import Tooltip from '@material-ui/core/Tooltip';
import Typography from '@material-ui/core/Typography';
import { useState } from 'react';
import useAsync from 'react-use/esm/useAsync';
import useAsyncRetry from 'react-use/esm/useAsyncRetry';
import { gpuApiRef } from '../../api';
import { formatGpuEquivalents, formatRelative } from '../common';
import { DecisionDialog } from './DecisionDialog';

/** A pending approval with the service it would create or change (absent if the service could not be read). */
export interface PendingApprovalRow {
  approval: ApprovalView;
  service?: GpuServiceView;
}

function describeRequest(service: GpuServiceView): string {
  const { placement, request } = service;
  const slice = placement.migProfile ? ` ${placement.migProfile}` : '';
  return `${request.model}, ${placement.tier}${slice} on ${placement.pool}, ${request.replicas} replica(s), ${service.environment}`;
}

/**
 * Requests outside policy waiting for an approver. Approve and reject need the `gpu.request.approve` permission; a
 * decision refreshes the list and tells the page (quota and audit change with it).
 */
export function PendingApprovalsTable(props: {
  refreshKey?: number;
  onDecided?: (result: ApprovalDecisionResponse) => void;
}) {
  const gpuApi = useApi(gpuApiRef);
  const { allowed, loading: checkingPermission } = usePermission({
    permission: gpuApprovePermission,
  });
  const [deciding, setDeciding] = useState<{
    row: PendingApprovalRow;
    decision: 'approve' | 'reject';
  }>();
  const [lastDecision, setLastDecision] = useState<string>();
  const identityApi = useApi(identityApiRef);
  // Four eyes: the backend refuses a decision on one's own request, so its buttons are disabled here.
  const { value: me } = useAsync(
    async () =>
      (
        await identityApi.getBackstageIdentity()
      ).userEntityRef.toLocaleLowerCase('en-US'),
    [identityApi],
  );

  const { value, loading, error, retry } = useAsyncRetry(async () => {
    const approvals = await gpuApi.listApprovals({ state: 'pending' });
    const services = await Promise.all(
      approvals.map(a => gpuApi.getService(a.serviceId).catch(() => undefined)),
    );
    return approvals.map(
      (approval, i): PendingApprovalRow => ({ approval, service: services[i] }),
    );
  }, [gpuApi, props.refreshKey]);

  if (error) {
    return (
      <ResponseErrorPanel
        error={error}
        title="Could not load pending approvals"
      />
    );
  }

  const denied = !checkingPermission && !allowed;
  const actionButton = (
    row: PendingApprovalRow,
    decision: 'approve' | 'reject',
  ) => {
    const own =
      me !== undefined &&
      row.approval.requestedBy.toLocaleLowerCase('en-US') === me;
    const button = (
      <Button
        size="small"
        variant={decision === 'approve' ? 'contained' : 'outlined'}
        color={decision === 'approve' ? 'primary' : 'secondary'}
        disabled={!allowed || own}
        onClick={() => setDeciding({ row, decision })}
        aria-label={`${decision} ${
          row.service?.name ?? row.approval.serviceId
        }`}
      >
        {decision === 'approve' ? 'Approve' : 'Reject'}
      </Button>
    );
    if (denied || own) {
      return (
        <Tooltip
          title={
            denied
              ? 'You need the gpu.request.approve permission'
              : 'You made this request: another approver decides it (four eyes)'
          }
        >
          <span>{button}</span>
        </Tooltip>
      );
    }
    return button;
  };

  const columns: TableColumn<PendingApprovalRow>[] = [
    {
      title: 'Service',
      render: row =>
        row.service ? (
          <>
            <Typography variant="body2">{row.service.name}</Typography>
            <Typography variant="caption" color="textSecondary">
              {row.service.namespace}
            </Typography>
          </>
        ) : (
          row.approval.serviceId
        ),
    },
    { title: 'Team', render: row => row.approval.team },
    {
      title: 'Request',
      render: row =>
        row.service
          ? `${
              row.approval.kind === 'change' ? 'Change: ' : ''
            }${describeRequest(row.service)}`
          : row.approval.kind,
    },
    {
      title: 'GPU-equivalents',
      render: row =>
        row.service ? formatGpuEquivalents(row.service.gpuEquivalents) : '',
    },
    { title: 'Monthly cost', render: row => row.service?.monthlyCost ?? '' },
    {
      title: 'Why it needs approval',
      render: row => (
        <ul style={{ margin: 0, paddingLeft: 16 }}>
          {row.approval.reasons.map(r => (
            <li key={r.code}>{r.message}</li>
          ))}
        </ul>
      ),
    },
    {
      title: 'Requested',
      render: row =>
        `${row.approval.requestedBy.replace(
          /^user:default\//,
          '',
        )}, ${formatRelative(row.approval.requestedAt)}`,
    },
    {
      title: 'Decision',
      render: row => (
        <Box display="flex" style={{ gap: 8 }}>
          {actionButton(row, 'approve')}
          {actionButton(row, 'reject')}
        </Box>
      ),
    },
  ];

  return (
    <>
      <Table<PendingApprovalRow>
        title="Pending approvals"
        subtitle={
          lastDecision ??
          (denied ? 'You may see requests but not decide them.' : undefined)
        }
        isLoading={loading}
        options={{ paging: false, search: false, padding: 'dense' }}
        columns={columns}
        data={value ?? []}
        emptyContent={
          <Box p={2}>
            <Typography variant="body2">
              No request is waiting for approval.
            </Typography>
          </Box>
        }
      />
      {deciding && (
        <DecisionDialog
          approvalId={deciding.row.approval.id}
          serviceName={
            deciding.row.service?.name ?? deciding.row.approval.serviceId
          }
          decision={deciding.decision}
          overage={deciding.row.approval.overage}
          onClose={() => setDeciding(undefined)}
          onDecided={result => {
            setDeciding(undefined);
            setLastDecision(
              `${
                result.approval.state === 'approved' ? 'Approved' : 'Rejected'
              } ${result.service.name}: the service is now ${
                result.service.status
              }.`,
            );
            if (props.onDecided) props.onDecided(result);
            else retry();
          }}
        />
      )}
    </>
  );
}
