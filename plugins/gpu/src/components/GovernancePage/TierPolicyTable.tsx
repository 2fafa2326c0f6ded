import { Table, TableColumn } from '@backstage/core-components';
import { EnvironmentPolicy } from '@gpu-platform/backstage-plugin-gpu-common';

const columns: TableColumn<EnvironmentPolicy>[] = [
  { title: 'Environment', field: 'name' },
  { title: 'Allowed tiers', render: env => env.allowedTiers.join(', ') },
  {
    title: 'Dedicated GPUs without approval (all replicas)',
    field: 'maxDedicatedGpus',
    type: 'numeric',
  },
  { title: 'Priority class', field: 'priorityClass' },
];

/** Which sharing tiers each environment may use. */
export function TierPolicyTable(props: { environments: EnvironmentPolicy[] }) {
  return (
    <Table<EnvironmentPolicy>
      title="Tier policy"
      options={{
        paging: false,
        search: false,
        draggable: false,
        padding: 'dense',
      }}
      columns={columns}
      data={props.environments}
    />
  );
}
