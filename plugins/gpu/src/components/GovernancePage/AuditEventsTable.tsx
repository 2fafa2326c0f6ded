import {
  ResponseErrorPanel,
  Table,
  TableColumn,
} from '@backstage/core-components';
import { useApi } from '@backstage/frontend-plugin-api';
import { EntityRefLink } from '@backstage/plugin-catalog-react';
import { AuditEventView } from '@gpu-platform/backstage-plugin-gpu-common';
import MenuItem from '@material-ui/core/MenuItem';
import TextField from '@material-ui/core/TextField';
import { useEffect, useRef, useState } from 'react';
import { gpuApiRef } from '../../api';
import { RelativeTime } from '../common';
import { describeAuditEvent } from './describeAuditEvent';
import { useSortArrowStyles } from './sortArrowStyles';
import { useCursorPages } from './useCursorPages';

/** The team filter's value for every team (never a team name: those are DNS labels). */
const ALL_TEAMS = '*';

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
    render: event => <RelativeTime iso={event.at} />,
  },
  {
    title: 'What happened',
    sorting: false,
    render: event => <AuditSentenceCell event={event} />,
  },
];

/**
 * The audit trail (`GET /audit`), newest first (oldest first from the When header), a page at a time from the
 * server, of every team or of the one chosen, searched on the server by who, what, team or service (`search`): each event as a sentence naming who did what to which service (linked to its catalog entity when it has
 * one), team or batch job.
 */
export function AuditEventsTable(props: {
  refreshKey?: number;
  /** The platform's teams: the trail can be narrowed to one (`GET /audit?team=`). */
  teams?: string[];
}) {
  const gpuApi = useApi(gpuApiRef);
  const sortArrows = useSortArrowStyles();
  // ALL_TEAMS, or the name of the team the trail is narrowed to.
  const [team, setTeam] = useState(ALL_TEAMS);
  const { tableRef, fetchPage, error, sort } = useCursorPages(query =>
    gpuApi.listAuditEvents({
      limit: query.limit,
      cursor: query.cursor,
      ...(team !== ALL_TEAMS ? { team } : {}),
      ...(query.search ? { search: query.search } : {}),
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
      {props.teams && props.teams.length > 0 && (
        <TextField
          select
          id="gpu-audit-team"
          label="Team"
          value={team}
          onChange={e => setTeam(e.target.value)}
          variant="outlined"
          size="small"
          style={{ minWidth: 200, marginBottom: 8 }}
        >
          <MenuItem value={ALL_TEAMS}>All teams</MenuItem>
          {props.teams.map(name => (
            <MenuItem key={name} value={name}>
              {name}
            </MenuItem>
          ))}
        </TextField>
      )}
      <div className={sortArrows.table}>
        <Table<AuditEventView>
          // A new team reads from the first page again.
          key={team}
          tableRef={tableRef}
          title={
            team !== ALL_TEAMS ? `Audit events of ${team}` : 'Audit events'
          }
          subtitle={sort?.order === 'asc' ? 'Oldest first' : 'Newest first'}
          options={{
            paging: true,
            pageSize: AUDIT_PAGE_SIZE,
            pageSizeOptions: [20, 50, 100],
            showFirstLastPageButtons: false,
            emptyRowsWhenPaging: false,
            // Searched on the server (GET /audit?search=), from the first page.
            search: true,
            debounceInterval: 400,
            sorting: true,
            thirdSortClick: false,
            draggable: false,
            padding: 'dense',
          }}
          localization={{
            toolbar: {
              searchPlaceholder: 'Search who, what, team or service',
              searchTooltip: 'Search who, what, team or service',
              searchAriaLabel: 'Search the audit trail',
            },
          }}
          columns={columns}
          data={fetchPage}
        />
      </div>
    </>
  );
}
