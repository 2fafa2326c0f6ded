import {
  InfoCard,
  Progress,
  ResponseErrorPanel,
  StatusOK,
  StatusWarning,
  Table,
  TableColumn,
  WarningPanel,
} from '@backstage/core-components';
import { useApi } from '@backstage/frontend-plugin-api';
import { usePermission } from '@backstage/plugin-permission-react';
import {
  gpuQuotaReadPermission,
  PoolCapacityPolicy,
  PoolSubscription,
} from '@gpu-platform/backstage-plugin-gpu-common';
import Typography from '@material-ui/core/Typography';
import useAsync from 'react-use/esm/useAsync';
import { gpuApiRef } from '../../api';

function gpus(value: number): string {
  return `${Math.round(value * 1000) / 1000}`;
}

const columns: TableColumn<PoolSubscription>[] = [
  { title: 'Pool', field: 'pool' },
  {
    title: 'Capacity (GPU-eq.)',
    render: p => gpus(p.capacityGpuEquivalents),
  },
  {
    title: 'Quotas, all teams (GPU-eq.)',
    render: p =>
      `${gpus(p.quotaGpuEquivalents)} (${p.teams} team${
        p.teams === 1 ? '' : 's'
      })`,
  },
  { title: 'In use (GPU-eq.)', render: p => gpus(p.heldGpuEquivalents) },
  {
    title: 'Free (GPU-eq.)',
    render: p =>
      gpus(Math.max(0, p.capacityGpuEquivalents - p.heldGpuEquivalents)),
  },
  {
    title: 'Quotas vs capacity',
    render: p =>
      p.oversubscribed ? (
        <StatusWarning>
          Oversubscribed by{' '}
          {gpus(p.quotaGpuEquivalents - p.capacityGpuEquivalents)}
        </StatusWarning>
      ) : (
        <StatusOK>Within capacity</StatusOK>
      ),
  },
];

/** What happens to a request within quota beyond the pool's free capacity, in words. */
export function describePoolCapacityPolicy(policy: PoolCapacityPolicy): string {
  return policy === 'refuse'
    ? "A request within its team's quota that does not fit the pool's free capacity is refused, and nothing is reserved"
    : "A request within its team's quota that does not fit the pool's free capacity waits for approval; an approver can grant it once capacity is free";
}

/**
 * Every pool's capacity, the GPUs in use (held by approved services) and free, against the sum of the teams' quotas
 * on it (`GET /pools/subscription`), with a warning for each pool the quotas oversubscribe. Only for those who may read every team's quota (the platform team).
 */
export function PoolSubscriptionSection(props: { refreshKey?: number }) {
  const gpuApi = useApi(gpuApiRef);
  const permission = usePermission({ permission: gpuQuotaReadPermission });
  const { value, loading, error } = useAsync(
    async () =>
      permission.allowed ? gpuApi.listPoolSubscriptions() : undefined,
    [gpuApi, permission.allowed, props.refreshKey],
  );
  if (permission.loading) {
    return <Progress />;
  }
  if (!permission.allowed) {
    return null;
  }
  if (error) {
    return <ResponseErrorPanel error={error} />;
  }
  if (loading || !value) {
    return <Progress />;
  }
  const oversubscribed = value.items.filter(p => p.oversubscribed);
  return (
    <InfoCard title="Pool capacity and quotas">
      {oversubscribed.map(p => (
        <WarningPanel
          key={p.pool}
          defaultExpanded
          title={`Quotas oversubscribe pool ${p.pool}`}
          message={`The quotas of ${p.teams} teams add up to ${gpus(
            p.quotaGpuEquivalents,
          )} GPU-equivalents against the pool's capacity of ${gpus(
            p.capacityGpuEquivalents,
          )} (held now: ${gpus(p.heldGpuEquivalents)}).`}
        />
      ))}
      <Typography variant="body2" data-testid="pool-capacity-policy">
        {describePoolCapacityPolicy(value.whenOverPoolCapacity)}{' '}
        (gpu.admission.whenOverPoolCapacity: {value.whenOverPoolCapacity}).
      </Typography>
      <Table<PoolSubscription>
        options={{
          paging: false,
          search: false,
          draggable: false,
          padding: 'dense',
          toolbar: false,
        }}
        columns={columns}
        data={value.items}
      />
    </InfoCard>
  );
}
