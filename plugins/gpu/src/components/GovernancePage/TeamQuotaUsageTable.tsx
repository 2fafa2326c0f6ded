import {
  ResponseErrorPanel,
  Table,
  TableColumn,
} from '@backstage/core-components';
import { useApi } from '@backstage/frontend-plugin-api';
import { usePermission } from '@backstage/plugin-permission-react';
import {
  formatUsd,
  gpuQuotaUpdatePermission,
  TeamQuotaView,
} from '@gpu-platform/backstage-plugin-gpu-common';
import Box from '@material-ui/core/Box';
import Button from '@material-ui/core/Button';
import Tooltip from '@material-ui/core/Tooltip';
import Typography from '@material-ui/core/Typography';
import { useEffect, useRef, useState } from 'react';
import useAsyncRetry from 'react-use/esm/useAsyncRetry';
import { gpuApiRef } from '../../api';
import {
  formatGpuEquivalents,
  RelativeTime,
  useErrorColorStyles,
  UsageBar,
} from '../common';
import { actorName } from './describeAuditEvent';
import { QuotaEditDialog } from './QuotaEditDialog';

/** A team's stored quota, or why it could not be read. */
interface QuotaRow {
  team: string;
  quota?: TeamQuotaView;
  error?: string;
}

/** Pools with a quota or something held, in the platform's order. */
function poolsOf(quota: TeamQuotaView, poolOrder: string[]): string[] {
  const used = new Set([
    ...Object.keys(quota.pools),
    ...Object.keys(quota.reservedGpuEquivalents).filter(
      p => quota.reservedGpuEquivalents[p] > 0,
    ),
  ]);
  return poolOrder.filter(p => used.has(p));
}

/**
 * Per team: GPU-equivalents held against the nominal quota of every pool, and projected monthly cost held against
 * the budget, from `GET /quotas` (one request for every team); searchable and sortable by team. Editing needs the
 * `gpu.quota.update` permission.
 */
export function TeamQuotaUsageTable(props: {
  teams: string[];
  pools: string[];
  refreshKey?: number;
  onChanged?: (quota: TeamQuotaView) => void;
}) {
  const { teams, pools } = props;
  const gpuApi = useApi(gpuApiRef);
  const errorColor = useErrorColorStyles();
  const { allowed, loading: checkingPermission } = usePermission({
    permission: gpuQuotaUpdatePermission,
  });
  const [editing, setEditing] = useState<TeamQuotaView>();

  const { value, loading, error, retry } = useAsyncRetry(async () => {
    const quotas = new Map(
      (await gpuApi.listTeamQuotas()).map(q => [q.team, q]),
    );
    return teams.map(
      (team): QuotaRow =>
        quotas.has(team)
          ? { team, quota: quotas.get(team) }
          : { team, error: 'the team has no quota record' },
    );
  }, [gpuApi, teams.join(','), props.refreshKey]);

  // When the dialog closes the focus goes back to the team's Edit button: the table draws its rows anew while the
  // dialog is open, so the button the dialog would give the focus back to may be gone. After a save, once the rows
  // read again are in.
  const focusAfterClose = useRef<{
    team: string;
    rowsBefore?: unknown;
    afterReload: boolean;
  }>();
  useEffect(() => {
    const pending = focusAfterClose.current;
    if (!pending) return;
    if (pending.afterReload && (loading || value === pending.rowsBefore)) {
      return;
    }
    focusAfterClose.current = undefined;
    // After the table's own update of its rows (material-table copies new data into its state once rendered).
    setTimeout(() =>
      document
        .querySelector<HTMLButtonElement>(
          `button[aria-label="Edit quota of ${pending.team}"]`,
        )
        ?.focus(),
    );
  });

  const denied = !checkingPermission && !allowed;
  const columns: TableColumn<QuotaRow>[] = [
    { title: 'Team', field: 'team' },
    {
      title: 'GPU-equivalents held / quota per pool',
      sorting: false,
      searchable: false,
      render: row => {
        if (row.error) {
          return (
            <Typography className={errorColor.error} variant="body2">
              Could not read the quota: {row.error}
            </Typography>
          );
        }
        const quota = row.quota!;
        const shown = poolsOf(quota, pools);
        if (shown.length === 0) return 'No quota in any pool';
        return (
          <Box
            display="grid"
            style={{ gap: 6 }}
            data-testid={`quota-${row.team}`}
          >
            {shown.map(pool => {
              const held = quota.reservedGpuEquivalents[pool] ?? 0;
              const nominal = quota.pools[pool] ?? 0;
              return (
                <UsageBar
                  key={pool}
                  used={held}
                  total={nominal}
                  label={`${pool}: ${formatGpuEquivalents(
                    held,
                  )} of ${formatGpuEquivalents(nominal)}`}
                />
              );
            })}
          </Box>
        );
      },
    },
    {
      title: 'Monthly cost held / budget',
      searchable: false,
      customSort: (a, b) =>
        (a.quota?.reservedMonthlyCostMicros ?? -1) -
        (b.quota?.reservedMonthlyCostMicros ?? -1),
      render: row =>
        row.quota && (
          <UsageBar
            used={row.quota.reservedMonthlyCostMicros}
            total={row.quota.monthlyBudgetMicros}
            label={`${formatUsd(
              row.quota.reservedMonthlyCostMicros,
            )} of ${formatUsd(row.quota.monthlyBudgetMicros)}`}
          />
        ),
    },
    {
      title: 'Last change',
      searchable: false,
      customSort: (a, b) =>
        (a.quota?.updatedAt ?? '').localeCompare(b.quota?.updatedAt ?? ''),
      render: row =>
        row.quota && (
          <>
            {actorName(row.quota.updatedBy)},{' '}
            <RelativeTime iso={row.quota.updatedAt} />
          </>
        ),
    },
    {
      title: 'Edit',
      sorting: false,
      searchable: false,
      render: row => {
        if (!row.quota) return null;
        const button = (
          <Button
            size="small"
            variant="outlined"
            disabled={!allowed}
            onClick={() => setEditing(row.quota)}
            aria-label={`Edit quota of ${row.team}`}
          >
            Edit
          </Button>
        );
        return denied ? (
          <Tooltip title="You need the gpu.quota.update permission">
            <span>{button}</span>
          </Tooltip>
        ) : (
          button
        );
      },
    },
  ];

  if (error) {
    return (
      <ResponseErrorPanel error={error} title="Could not load team quotas" />
    );
  }

  return (
    <>
      <Table<QuotaRow>
        title="Team quotas"
        subtitle="Held: approved services. Pending requests do not count until approved."
        isLoading={loading}
        options={{
          paging: true,
          pageSize: 10,
          pageSizeOptions: [10, 25, 50],
          emptyRowsWhenPaging: false,
          search: true,
          searchFieldAlignment: 'left',
          draggable: false,
          padding: 'dense',
        }}
        localization={{
          toolbar: {
            searchPlaceholder: 'Search team',
            searchTooltip: 'Search team',
            searchAriaLabel: 'Search team quotas',
          },
        }}
        columns={columns}
        data={value ?? []}
      />
      {editing && (
        <QuotaEditDialog
          quota={editing}
          pools={pools}
          onClose={() => {
            focusAfterClose.current = {
              team: editing.team,
              afterReload: false,
            };
            setEditing(undefined);
          }}
          onSaved={saved => {
            focusAfterClose.current = {
              team: saved.team,
              rowsBefore: value,
              afterReload: true,
            };
            setEditing(undefined);
            if (props.onChanged) props.onChanged(saved);
            else retry();
          }}
        />
      )}
    </>
  );
}
