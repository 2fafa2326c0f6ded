import {
  InfoCard,
  Progress,
  ResponseErrorPanel,
  StatusError,
  StatusWarning,
  Table,
  TableColumn,
} from '@backstage/core-components';
import { useApi } from '@backstage/frontend-plugin-api';
import { usePermission } from '@backstage/plugin-permission-react';
import {
  gpuQuotaReadPermission,
  PlatformCheckCluster,
  PlatformFinding,
} from '@gpu-platform/backstage-plugin-gpu-common';
import Typography from '@material-ui/core/Typography';
import useAsync from 'react-use/esm/useAsync';
import { gpuApiRef } from '../../api';

const columns: TableColumn<PlatformFinding>[] = [
  {
    title: 'Severity',
    render: f =>
      f.severity === 'error' ? (
        <StatusError>error</StatusError>
      ) : (
        <StatusWarning>warning</StatusWarning>
      ),
  },
  { title: 'Check', field: 'id' },
  {
    title: 'Where',
    render: f => (f.cluster ? `${f.cluster}: ${f.where}` : f.where),
  },
  { title: 'Why it matters', field: 'message' },
  { title: 'Fix', field: 'fix' },
];

/** Which clusters were read and which got the config checks only. */
export function describeCheckedClusters(
  clusters: PlatformCheckCluster[],
): string {
  if (clusters.length === 0) {
    return 'No cluster is configured: the config was checked.';
  }
  const live = clusters.filter(c => c.live).map(c => c.name);
  const configOnly = clusters
    .filter(c => !c.live)
    .map(c => `${c.name} (${c.mode})`);
  return [
    'The config was checked',
    live.length > 0 ? `; read live: ${live.join(', ')}` : '',
    configOnly.length > 0
      ? `; config checks only, Backstage does not read them: ${configOnly.join(
          ', ',
        )}`
      : '',
    '.',
  ].join('');
}

/**
 * The platform checks (`GET /platform/checks`): the common GPU-cluster mistakes found in the config and on the
 * clusters Backstage applies to, each with where it is, why it matters and the fix. Only for those who may read
 * every team's quota (the platform team): others are told so, and nothing is asked of the backend.
 */
export function PlatformChecksSection() {
  const { allowed, loading } = usePermission({
    permission: gpuQuotaReadPermission,
  });
  if (loading) {
    return (
      <InfoCard title="Platform checks">
        <Progress />
      </InfoCard>
    );
  }
  if (!allowed) {
    return (
      <InfoCard title="Platform checks">
        <Typography variant="body2">
          The platform checks are the platform team's (permission
          gpu.quota.read).
        </Typography>
      </InfoCard>
    );
  }
  return <PlatformChecks />;
}

function PlatformChecks() {
  const gpuApi = useApi(gpuApiRef);
  const { value, loading, error } = useAsync(
    () => gpuApi.getPlatformChecks(),
    [gpuApi],
  );

  if (loading) {
    return (
      <InfoCard title="Platform checks">
        <Progress />
      </InfoCard>
    );
  }
  if (error) {
    return (
      <ResponseErrorPanel
        error={error}
        title="Could not run the platform checks"
        defaultExpanded
      />
    );
  }
  if (!value) return null;
  if (value.findings.length === 0) {
    return (
      <InfoCard title="Platform checks">
        <Typography variant="body1">
          None of the common GPU-cluster mistakes found.
        </Typography>
        <Typography variant="body2">
          {describeCheckedClusters(value.clusters)}
        </Typography>
      </InfoCard>
    );
  }
  return (
    <Table<PlatformFinding>
      title="Platform checks"
      subtitle={describeCheckedClusters(value.clusters)}
      options={{
        paging: false,
        search: false,
        draggable: false,
        padding: 'dense',
      }}
      columns={columns}
      data={value.findings}
    />
  );
}
