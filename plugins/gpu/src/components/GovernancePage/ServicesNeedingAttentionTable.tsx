import {
  ResponseErrorPanel,
  Table,
  TableColumn,
} from '@backstage/core-components';
import { useApi } from '@backstage/frontend-plugin-api';
import { EntityRefLink } from '@backstage/plugin-catalog-react';
import {
  GpuServiceView,
  ServiceCondition,
  ServiceStatus,
} from '@gpu-platform/backstage-plugin-gpu-common';
import Typography from '@material-ui/core/Typography';
import useAsync from 'react-use/esm/useAsync';
import { gpuApiRef } from '../../api';
import { describeServiceState, formatTime } from '../common';
import { failingCondition, reasonInWords } from '../common/conditionWords';

/** The statuses of services on their way that may be stuck: the reconciler failed, or the cluster has not run them. */
const ATTENTION_STATUSES: ServiceStatus[] = ['failed', 'starting', 'applying'];

/** Services of each status read for the section. */
const PER_STATUS = 50;

/** A service with the condition that holds it back. */
interface Row {
  service: GpuServiceView;
  condition: ServiceCondition;
}

const columns: TableColumn<Row>[] = [
  {
    title: 'Service',
    render: ({ service }) => (
      <>
        <Typography variant="body2">
          {service.entityRef ? (
            <EntityRefLink entityRef={service.entityRef} title={service.name} />
          ) : (
            service.name
          )}
        </Typography>
        <Typography variant="caption" display="block">
          {service.team} · {service.environment} ·{' '}
          {describeServiceState(service.status, service.mode)}
        </Typography>
      </>
    ),
  },
  {
    title: 'Condition',
    render: ({ condition }) => (
      <>
        <Typography variant="body2">
          {condition.type}: {reasonInWords(condition.reason)}
        </Typography>
        <Typography variant="caption" color="textSecondary" display="block">
          {condition.reason}
        </Typography>
      </>
    ),
  },
  {
    title: 'Since',
    render: ({ condition }) => formatTime(condition.lastTransitionTime),
  },
];

/**
 * The services that are failed, starting or being applied, each with the condition that holds it back in words,
 * switched on its reason code (`Available: waiting for Kueue to admit it …`, `Applied: the cluster refused the
 * apply …`): what the platform team looks at first when a team says its model does not come up.
 */
export function ServicesNeedingAttentionTable(props: { refreshKey?: number }) {
  const gpuApi = useApi(gpuApiRef);
  const { value, loading, error } = useAsync(async () => {
    const pages = await Promise.all(
      ATTENTION_STATUSES.map(status =>
        gpuApi.listServices({ status, limit: PER_STATUS }),
      ),
    );
    return pages
      .flatMap(page => page.items)
      .map(service => ({
        service,
        condition: failingCondition(service.conditions),
      }))
      .filter((row): row is Row => row.condition !== undefined)
      .sort((a, b) =>
        a.condition.lastTransitionTime.localeCompare(
          b.condition.lastTransitionTime,
        ),
      );
  }, [gpuApi, props.refreshKey]);

  if (error) return <ResponseErrorPanel error={error} />;
  return (
    <Table<Row>
      title="Services needing attention"
      subtitle="Failed, starting or being applied, longest first, with the condition that holds each back"
      isLoading={loading}
      columns={columns}
      data={value ?? []}
      // Not draggable (material-table's drag handles nest one control in another, axe nested-interactive), and not
      // sortable: its columns are drawn by render, so sort arrows would do nothing; the rows come longest first.
      options={{
        paging: false,
        search: false,
        draggable: false,
        sorting: false,
        padding: 'dense',
      }}
      emptyContent={
        <Typography variant="body2" style={{ padding: 16 }}>
          Every service is running, waiting for approval or deleted.
        </Typography>
      }
    />
  );
}
