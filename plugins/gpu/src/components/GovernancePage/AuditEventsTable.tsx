import {
  ResponseErrorPanel,
  Table,
  TableColumn,
} from '@backstage/core-components';
import { useApi } from '@backstage/frontend-plugin-api';
import { AuditEventView } from '@internal/backstage-plugin-gpu-common';
import Tooltip from '@material-ui/core/Tooltip';
import useAsync from 'react-use/esm/useAsync';
import { gpuApiRef } from '../../api';
import { formatRelative, formatTime } from '../common';
import { describeAuditChange } from './describeAuditChange';

const columns: TableColumn<AuditEventView>[] = [
  {
    title: 'When',
    render: event => (
      <Tooltip title={formatTime(event.at)}>
        <span>{formatRelative(event.at)}</span>
      </Tooltip>
    ),
  },
  { title: 'Who', render: event => event.actor.replace(/^user:default\//, '') },
  { title: 'Action', field: 'action' },
  { title: 'Team', render: event => event.team ?? '' },
  {
    title: 'Subject',
    render: event => `${event.subjectType} ${event.subjectId.slice(0, 8)}`,
  },
  { title: 'Change', render: describeAuditChange },
];

/** The newest audit events (`GET /audit`): who changed what, when, before and after. */
export function AuditEventsTable(props: {
  refreshKey?: number;
  limit?: number;
}) {
  const limit = props.limit ?? 20;
  const gpuApi = useApi(gpuApiRef);
  const { value, loading, error } = useAsync(
    () => gpuApi.listAuditEvents({ limit }),
    [gpuApi, limit, props.refreshKey],
  );
  if (error) {
    return (
      <ResponseErrorPanel
        error={error}
        title="Could not load the audit trail"
      />
    );
  }
  return (
    <Table<AuditEventView>
      title="Recent audit events"
      subtitle={value?.nextCursor ? `Newest ${limit}` : undefined}
      isLoading={loading}
      options={{ paging: false, search: false, padding: 'dense' }}
      columns={columns}
      data={value?.items ?? []}
    />
  );
}
