import {
  ResponseErrorPanel,
  Table,
  TableColumn,
} from '@backstage/core-components';
import { useApi } from '@backstage/frontend-plugin-api';
import { EntityRefLink } from '@backstage/plugin-catalog-react';
import { AuditEventView } from '@gpu-platform/backstage-plugin-gpu-common';
import Tooltip from '@material-ui/core/Tooltip';
import { useEffect, useRef } from 'react';
import { gpuApiRef } from '../../api';
import { formatRelative, formatTime } from '../common';
import { describeAuditEvent } from './describeAuditEvent';
import { useSortArrowStyles } from './sortArrowStyles';
import { useCursorPages } from './useCursorPages';

/** Rows per page of the audit trail. */
export const AUDIT_PAGE_SIZE = 20;

function AuditSentenceCell(props: { event: AuditEventView }) {
  const sentence = describeAuditEvent(props.event);
  return (
    <span>
      {sentence.lead}
      {sentence.entityRef ? (
        <EntityRefLink
          entityRef={sentence.entityRef}
          title={sentence.subject}
        />
      ) : (
        <strong>{sentence.subject}</strong>
      )}
      {sentence.tail}
    </span>
  );
}

const columns: TableColumn<AuditEventView>[] = [
  {
    title: 'When',
    // Sorted on the server, by the events' order: newest first until the header is clicked.
    field: 'at',
    defaultSort: 'desc',
    width: '160px',
    cellStyle: { whiteSpace: 'nowrap' },
    render: event => (
      <Tooltip title={formatTime(event.at)}>
        <span>{formatRelative(event.at)}</span>
      </Tooltip>
    ),
  },
  {
    title: 'What happened',
    sorting: false,
    render: event => <AuditSentenceCell event={event} />,
  },
];

/**
 * The audit trail (`GET /audit`), newest first (oldest first from the When header), a page at a time from the
 * server: each event as a sentence naming who did what to which service (linked to its catalog entity when it has
 * one), team or batch job.
 */
export function AuditEventsTable(props: { refreshKey?: number }) {
  const gpuApi = useApi(gpuApiRef);
  const sortArrows = useSortArrowStyles();
  const { tableRef, fetchPage, error, sort } = useCursorPages(query =>
    gpuApi.listAuditEvents({
      limit: query.limit,
      cursor: query.cursor,
      ...(query.sort?.field === 'at' ? { order: query.sort.order } : {}),
    }),
  );
  const refreshed = useRef(props.refreshKey);
  useEffect(() => {
    if (refreshed.current === props.refreshKey) return;
    refreshed.current = props.refreshKey;
    tableRef.current?.onQueryChange();
  }, [props.refreshKey, tableRef]);

  return (
    <>
      {error && (
        <ResponseErrorPanel
          error={error}
          title="Could not load the audit trail"
        />
      )}
      <div className={sortArrows.table}>
        <Table<AuditEventView>
          tableRef={tableRef}
          title="Audit events"
          subtitle={sort?.order === 'asc' ? 'Oldest first' : 'Newest first'}
          options={{
            paging: true,
            pageSize: AUDIT_PAGE_SIZE,
            pageSizeOptions: [20, 50, 100],
            showFirstLastPageButtons: false,
            emptyRowsWhenPaging: false,
            search: false,
            sorting: true,
            thirdSortClick: false,
            draggable: false,
            padding: 'dense',
          }}
          columns={columns}
          data={fetchPage}
        />
      </div>
    </>
  );
}
