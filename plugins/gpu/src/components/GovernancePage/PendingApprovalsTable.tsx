import {
  ResponseErrorPanel,
  Table,
  TableColumn,
} from '@backstage/core-components';
import { identityApiRef, useApi } from '@backstage/frontend-plugin-api';
import { EntityRefLink } from '@backstage/plugin-catalog-react';
import { usePermission } from '@backstage/plugin-permission-react';
import {
  APPROVAL_ORDER_BY,
  ApprovalDecisionResponse,
  ApprovalListItem,
  formatUsd,
  gpuApprovePermission,
} from '@gpu-platform/backstage-plugin-gpu-common';
import Box from '@material-ui/core/Box';
import Button from '@material-ui/core/Button';
import Tooltip from '@material-ui/core/Tooltip';
import Typography from '@material-ui/core/Typography';
import { CSSProperties, useEffect, useRef, useState } from 'react';
import useAsync from 'react-use/esm/useAsync';
import { gpuApiRef } from '../../api';
import { DestructiveButton, RelativeTime } from '../common';
import { DecisionDialog } from './DecisionDialog';
import { ReasonDetails } from './ReasonDetails';
import { approvalReasonWords } from './approvalReasonWords';
import { describeRequest } from './describeRequest';
import { useSortArrowStyles } from './sortArrowStyles';
import { ColumnSort, useCursorPages } from './useCursorPages';

/**
 * Why the decision on one's own request is disabled, shown under its buttons (not only on hover): the backend refuses
 * it, and someone else with the approve permission must sign in to decide.
 */
export const OWN_REQUEST =
  'You made this request, so you cannot decide it (four eyes): another member of the platform team with the approve permission signs in to decide it.';

/** Rows per page of the queue; the approver may choose another size. */
export const APPROVALS_PAGE_SIZE = 10;

/**
 * Width of the approval reasons: each in short words on one line, so seven columns fit the page at 1280 px and a
 * row stays a few lines high; "Full reasons" under them shows every reason's whole sentence in place, wrapped to
 * this width (a button, so the keyboard reaches it; no hover or dialog needed to read a reason to its end).
 */
const REASONS_WIDTH_PX = 240;

/**
 * Widths of the columns but the service's, which takes the rest (material-table shares the width equally among
 * columns without one, which squeezed the service and its request into a sixth of the table).
 */
const COLUMN_WIDTH_PX = {
  team: 120,
  monthlyCost: 110,
  reasons: REASONS_WIDTH_PX + 48,
  requestedAt: 130,
  decision: 110,
};

const SORT_NAMES: Record<string, [string, string]> = {
  requestedAt: ['Oldest first', 'Newest first'],
  service: ['By service, A to Z', 'By service, Z to A'],
  team: ['By team, A to Z', 'By team, Z to A'],
  monthlyCost: ['Cheapest first', 'Dearest first'],
};

/** The table's subtitle for the order a page was read in. */
function describeSort(sort: ColumnSort | undefined): string {
  const names = SORT_NAMES[sort?.field ?? 'requestedAt'];
  return names[sort?.order === 'desc' ? 1 : 0];
}

/** What the request asks to hold per month: the approval's own figure (a change's new cost), else the service's. */
function requestedMonthlyCost(row: ApprovalListItem): string {
  if (row.overage) return formatUsd(row.overage.monthlyCostMicros);
  return row.service?.monthlyCost ?? '';
}

/**
 * Requests outside policy waiting for an approver, a page at a time from `GET /approvals` (one request per page,
 * each approval with its service), searchable by service, team or requester and sorted by the service, team,
 * monthly cost or request time column on the server (the queue's order, oldest first, until a header is clicked).
 * Approve and reject need the `gpu.request.approve` permission; a decision refreshes the list and tells the page
 * (quota and audit change with it).
 */
export function PendingApprovalsTable(props: {
  refreshKey?: number;
  onDecided?: (result: ApprovalDecisionResponse) => void;
}) {
  const gpuApi = useApi(gpuApiRef);
  const sortArrows = useSortArrowStyles();
  const { allowed, loading: checkingPermission } = usePermission({
    permission: gpuApprovePermission,
  });
  const [deciding, setDeciding] = useState<{
    row: ApprovalListItem;
    decision: 'approve' | 'reject';
  }>();
  const [lastDecision, setLastDecision] = useState<string>();
  // After a decision its row leaves the queue, and with it the button that opened the dialog: focus moves to the
  // decision's outcome instead of dropping to the page.
  const decisionStatus = useRef<HTMLElement>(null);
  useEffect(() => {
    if (lastDecision) decisionStatus.current?.focus();
  }, [lastDecision]);
  const identityApi = useApi(identityApiRef);
  // Four eyes: the backend refuses a decision on one's own request, so its buttons are disabled here.
  const { value: me } = useAsync(
    async () =>
      (
        await identityApi.getBackstageIdentity()
      ).userEntityRef.toLocaleLowerCase('en-US'),
    [identityApi],
  );

  const { tableRef, fetchPage, error, sort } = useCursorPages(
    ({ sort: columnSort, ...query }) => {
      const orderBy = APPROVAL_ORDER_BY.find(o => o === columnSort?.field);
      return gpuApi.listApprovals({
        state: 'pending',
        ...query,
        ...(orderBy && columnSort ? { orderBy, order: columnSort.order } : {}),
      });
    },
  );
  const refreshed = useRef(props.refreshKey);
  useEffect(() => {
    if (refreshed.current === props.refreshKey) return;
    refreshed.current = props.refreshKey;
    tableRef.current?.onQueryChange();
  }, [props.refreshKey, tableRef]);

  const denied = !checkingPermission && !allowed;
  const actionButton = (
    row: ApprovalListItem,
    decision: 'approve' | 'reject',
  ) => {
    const own =
      me !== undefined && row.requestedBy.toLocaleLowerCase('en-US') === me;
    const buttonProps = {
      size: 'small' as const,
      disabled: !allowed || own,
      onClick: () => setDeciding({ row, decision }),
      'aria-label': `${decision} ${row.service?.name ?? row.serviceId}`,
      'aria-describedby': own ? `gpu-own-request-${row.id}` : undefined,
      style: { whiteSpace: 'nowrap', flexShrink: 0 } as CSSProperties,
    };
    const button =
      decision === 'approve' ? (
        <Button variant="contained" color="primary" {...buttonProps}>
          Approve
        </Button>
      ) : (
        <DestructiveButton {...buttonProps}>Reject</DestructiveButton>
      );
    if (denied) {
      return (
        <Tooltip title="You need the gpu.request.approve permission">
          <span>{button}</span>
        </Tooltip>
      );
    }
    return button;
  };
  const isOwn = (row: ApprovalListItem) =>
    me !== undefined && row.requestedBy.toLocaleLowerCase('en-US') === me;

  // Sortable columns carry the `orderBy` of GET /approvals as their field; the others are not sortable.
  const columns: TableColumn<ApprovalListItem>[] = [
    {
      // The request is the service's caption rather than a column of its own, so seven facts fit at 1280 px.
      title: 'Service',
      field: 'service',
      render: row =>
        row.service ? (
          <>
            <Typography variant="body2">
              {row.service.entityRef ? (
                <EntityRefLink
                  entityRef={row.service.entityRef}
                  title={row.service.name}
                />
              ) : (
                row.service.name
              )}
            </Typography>
            <Typography variant="caption" display="block">
              {row.kind === 'change' ? 'Change: ' : ''}
              {describeRequest(row.service)}
            </Typography>
          </>
        ) : (
          `${row.serviceId} (${row.kind})`
        ),
    },
    {
      title: 'Team',
      field: 'team',
      width: `${COLUMN_WIDTH_PX.team}px`,
      cellStyle: { whiteSpace: 'nowrap' },
    },
    {
      title: 'Monthly cost',
      field: 'monthlyCost',
      width: `${COLUMN_WIDTH_PX.monthlyCost}px`,
      cellStyle: { whiteSpace: 'nowrap' },
      render: row => (
        <>
          <Typography variant="body2">{requestedMonthlyCost(row)}</Typography>
          {row.kind === 'change' && row.overage && row.service && (
            <Typography variant="caption">
              now {row.service.monthlyCost}
            </Typography>
          )}
        </>
      ),
    },
    {
      title: 'Why it needs approval',
      sorting: false,
      width: `${COLUMN_WIDTH_PX.reasons}px`,
      render: row => (
        <div style={{ width: REASONS_WIDTH_PX }}>
          <ul style={{ margin: 0, paddingLeft: 16 }}>
            {row.reasons.map((r, i) => (
              <li
                key={`${r.code}-${i}`}
                style={{
                  // The cell's line height clipped one line's letters by the next once overflow was hidden.
                  lineHeight: 1.5,
                  whiteSpace: 'nowrap',
                  overflow: 'hidden',
                  textOverflow: 'ellipsis',
                }}
              >
                {approvalReasonWords(r)}
              </li>
            ))}
          </ul>
          {row.reasons.length > 0 && (
            <ReasonDetails
              id={`approval-${row.id}`}
              label={row.reasons.length === 1 ? 'Full reason' : 'Full reasons'}
              subject={row.service?.name ?? row.serviceId}
            >
              <ul style={{ margin: 0, paddingLeft: 16 }}>
                {row.reasons.map((r, i) => (
                  <li key={`${r.code}-${i}`}>
                    <Typography variant="caption">{r.message}</Typography>
                  </li>
                ))}
              </ul>
            </ReasonDetails>
          )}
        </div>
      ),
    },
    {
      title: 'Requested',
      field: 'requestedAt',
      defaultSort: 'asc',
      width: `${COLUMN_WIDTH_PX.requestedAt}px`,
      cellStyle: { whiteSpace: 'nowrap' },
      render: row => (
        <>
          <Typography variant="body2">
            {row.requestedBy.replace(/^user:default\//, '')}
          </Typography>
          <Typography variant="caption">
            <RelativeTime iso={row.requestedAt} />
          </Typography>
        </>
      ),
    },
    {
      title: 'Decision',
      sorting: false,
      width: `${COLUMN_WIDTH_PX.decision}px`,
      cellStyle: { whiteSpace: 'nowrap' },
      render: row => (
        <Box display="flex" flexDirection="column" style={{ gap: 4 }}>
          {actionButton(row, 'approve')}
          {actionButton(row, 'reject')}
          {!denied && isOwn(row) && (
            <Typography
              variant="caption"
              id={`gpu-own-request-${row.id}`}
              data-testid="own-request"
              style={{ whiteSpace: 'normal' }}
            >
              {OWN_REQUEST}
            </Typography>
          )}
        </Box>
      ),
    },
  ];

  return (
    <>
      {error && (
        <ResponseErrorPanel
          error={error}
          title="Could not load pending approvals"
        />
      )}
      {lastDecision && (
        <Typography
          variant="body2"
          role="status"
          tabIndex={-1}
          ref={decisionStatus}
          data-testid="last-decision"
          style={{ marginBottom: 8 }}
        >
          {lastDecision}
        </Typography>
      )}
      <div className={sortArrows.table}>
        <Table<ApprovalListItem>
          tableRef={tableRef}
          title="Pending approvals"
          subtitle={
            denied
              ? 'You may see requests but not decide them.'
              : describeSort(sort)
          }
          options={{
            paging: true,
            pageSize: APPROVALS_PAGE_SIZE,
            pageSizeOptions: [10, 20, 50],
            showFirstLastPageButtons: false,
            emptyRowsWhenPaging: false,
            search: true,
            searchFieldAlignment: 'left',
            debounceInterval: 300,
            sorting: true,
            thirdSortClick: false,
            draggable: false,
            padding: 'dense',
          }}
          localization={{
            toolbar: {
              searchPlaceholder: 'Search service, team or requester',
              searchTooltip: 'Search service, team or requester',
              searchAriaLabel: 'Search pending approvals',
            },
            // Remote data: the table shows this, not emptyContent, when a page is empty.
            body: {
              emptyDataSourceMessage: 'No request is waiting for approval.',
            },
          }}
          columns={columns}
          data={fetchPage}
        />
      </div>
      {deciding && (
        <DecisionDialog
          approval={deciding.row}
          decision={deciding.decision}
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
            else tableRef.current?.onQueryChange();
          }}
        />
      )}
    </>
  );
}
