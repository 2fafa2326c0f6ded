import {
  Content,
  Header,
  Page,
  Progress,
  ResponseErrorPanel,
} from '@backstage/core-components';
import { useApi } from '@backstage/frontend-plugin-api';
import Grid from '@material-ui/core/Grid';
import Typography from '@material-ui/core/Typography';
import useAsync from 'react-use/esm/useAsync';
import { gpuApiRef } from '../../api';
import { PoolsTable } from './PoolsTable';
import { TeamQuotasTable } from './TeamQuotasTable';
import { TierPolicyTable } from './TierPolicyTable';

/** The platform team's page: pools and prices, tier policy and team quotas. */
export function GovernancePage() {
  const gpuApi = useApi(gpuApiRef);
  const { value, loading, error } = useAsync(() => gpuApi.getPlatform(), [
    gpuApi,
  ]);

  return (
    <Page themeId="tool">
      <Header
        title="GPU governance"
        subtitle="Pools, prices, tier policy and team quotas"
      />
      <Content>
        {loading && <Progress />}
        {error && <ResponseErrorPanel error={error} />}
        {value && (
          <Grid container spacing={3}>
            <Grid item xs={12}>
              <Typography variant="body2" data-testid="cluster-mode">
                {value.clusters.length === 0
                  ? 'No cluster is configured: services are rendered and stored (dry-run), nothing is applied.'
                  : `Clusters: ${value.clusters
                      .map(c => `${c.name} (${c.mode})`)
                      .join(', ')}`}
              </Typography>
            </Grid>
            <Grid item xs={12}>
              <PoolsTable pools={value.platform.pools} />
            </Grid>
            <Grid item xs={12} md={6}>
              <TierPolicyTable environments={value.platform.environments} />
            </Grid>
            <Grid item xs={12} md={6}>
              <TeamQuotasTable teams={value.platform.teams} />
            </Grid>
          </Grid>
        )}
      </Content>
    </Page>
  );
}
