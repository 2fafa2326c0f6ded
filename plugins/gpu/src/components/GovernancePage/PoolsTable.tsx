import { Table, TableColumn } from '@backstage/core-components';
import { Pool, PoolSharing } from '@gpu-platform/backstage-plugin-gpu-common';

function describeSharing(sharing: PoolSharing): string {
  switch (sharing.type) {
    case 'none':
      return 'Whole GPUs';
    case 'mig':
      return `MIG ${Object.entries(sharing.layout)
        .map(([profile, count]) => `${count}x ${profile}`)
        .join(' + ')}`;
    case 'mps':
      return `CUDA MPS, ${sharing.replicas} replicas`;
    case 'time-slicing':
      return `Time-slicing, ${sharing.replicas} replicas`;
    default:
      return 'Unknown';
  }
}

const columns: TableColumn<Pool>[] = [
  { title: 'Pool', field: 'name' },
  { title: 'Cluster', render: pool => pool.cluster ?? '—' },
  { title: 'GPU', field: 'gpuModel' },
  { title: 'GPUs per node', field: 'gpusPerNode', type: 'numeric' },
  { title: 'Max nodes', field: 'maxNodes', type: 'numeric' },
  { title: 'Capacity', field: 'capacityType' },
  {
    title: 'Price per node-hour',
    render: pool => `$${pool.pricePerNodeHour}`,
  },
  { title: 'Sharing', render: pool => describeSharing(pool.sharing) },
];

/** The platform's GPU pools with their prices and sharing settings. */
export function PoolsTable(props: { pools: Pool[] }) {
  return (
    <Table<Pool>
      title="GPU pools"
      options={{
        paging: false,
        search: false,
        draggable: false,
        padding: 'dense',
      }}
      columns={columns}
      data={props.pools}
    />
  );
}
