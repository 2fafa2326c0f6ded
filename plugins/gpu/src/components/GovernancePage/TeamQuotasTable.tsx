import { Table, TableColumn } from '@backstage/core-components';
import { TeamQuota } from '@internal/backstage-plugin-gpu-common';

const columns: TableColumn<TeamQuota>[] = [
  { title: 'Team', field: 'name' },
  { title: 'Namespaces', render: team => team.namespaces.join(', ') },
  {
    title: 'GPU-equivalents per pool',
    render: team =>
      Object.entries(team.gpuQuota)
        .map(([pool, quota]) => `${pool}: ${quota}`)
        .join(', ') || 'none',
  },
  { title: 'Monthly budget', render: team => `$${team.monthlyBudget}` },
];

/** Per-team quotas and budgets. */
export function TeamQuotasTable(props: { teams: TeamQuota[] }) {
  return (
    <Table<TeamQuota>
      title="Team quotas"
      options={{ paging: false, search: false, padding: 'dense' }}
      columns={columns}
      data={props.teams}
    />
  );
}
