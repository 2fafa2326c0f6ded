import { Progress, Table, TableColumn } from '@backstage/core-components';
import { humanizeEntityRef } from '@backstage/plugin-catalog-react';
import { parseEntityRef } from '@backstage/catalog-model';
import {
  formatUsd,
  GroupRollUp,
  OverviewSummary,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { ErrorText, errorMessage } from '../common';
import { useGroupRollUp } from './useGroupRollUp';

const name = (ref: string) =>
  humanizeEntityRef(parseEntityRef(ref), { defaultKind: 'group' });

/**
 * Month-to-date cost per catalog group: its own team's and with every group below it (`spec.parent` /
 * `spec.children`), the overview's teams rolled up the catalog's groups.
 */
export function GroupRollUpTable(props: { overview: OverviewSummary }) {
  const { overview } = props;
  const { rollUp, loading, error } = useGroupRollUp(overview);
  if (loading) return <Progress />;
  if (error || !rollUp) {
    return (
      <ErrorText>
        Could not read the catalog's groups to roll costs up:{' '}
        {error ? errorMessage(error) : 'no answer'}
      </ErrorText>
    );
  }
  const columns: TableColumn<GroupRollUp>[] = [
    { title: 'Group', render: row => name(row.ref) },
    {
      title: 'Parent',
      render: row => (row.parent ? name(row.parent) : '—'),
    },
    {
      title: `Own team, month-to-date (${overview.month})`,
      render: row => formatUsd(row.ownMicros),
    },
    {
      title: 'With child groups',
      render: row => formatUsd(row.totalMicros),
    },
  ];
  return (
    <Table<GroupRollUp>
      title="Cost by group"
      subtitle="A group's cost includes the groups below it in the catalog."
      options={{
        paging: false,
        search: false,
        draggable: false,
        padding: 'dense',
      }}
      columns={columns}
      data={rollUp}
    />
  );
}
