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
import { useCallback, useState } from 'react';
import useAsync from 'react-use/esm/useAsync';
import { gpuApiRef } from '../../api';
import { useGpuChanges } from '../common';
import { AuditEventsTable } from './AuditEventsTable';
import {
  ALL_CLUSTERS,
  ClusterFilter,
  describeCluster,
  poolsOfCluster,
} from './ClusterFilter';
import { CostOverviewSection } from './CostOverviewSection';
import { PendingApprovalsTable } from './PendingApprovalsTable';
import { PlatformChecksSection } from './PlatformChecksSection';
import { PoolsTable } from './PoolsTable';
import { PoolSubscriptionSection } from './PoolSubscriptionSection';
import { ServicesNeedingAttentionTable } from './ServicesNeedingAttentionTable';
import { TeamQuotaUsageTable } from './TeamQuotaUsageTable';
import { TierPolicyTable } from './TierPolicyTable';

/** Changes announced within this long of each other reload the page once. */
export const CHANGE_DEBOUNCE_MS = 500;

/**
 * The platform team's page: pending approvals, services needing attention (with the condition that holds each back),
 * team quota use and editing, pools and prices, tier policy and the
 * audit trail. A decision or a quota change reloads the sections it affects; so does any change the gpu backend
 * announces on the `gpu:service-changes` signal (a request by someone else, a decision on another approver's page, a
 * status change), so the page stays current without reloading it.
 */
export function GovernancePage() {
  const gpuApi = useApi(gpuApiRef);
  const { value, loading, error } = useAsync(
    () => gpuApi.getPlatform(),
    [gpuApi],
  );
  const [refreshKey, setRefreshKey] = useState(0);
  const refresh = useCallback(() => setRefreshKey(k => k + 1), []);
  const [cluster, setCluster] = useState(ALL_CLUSTERS);
  const pools = value ? poolsOfCluster(value.platform.pools, cluster) : [];
  useGpuChanges(refresh, { debounceMs: CHANGE_DEBOUNCE_MS });

  return (
    <Page themeId="tool">
      <Header
        title="GPU governance"
        subtitle="Approvals, quotas, cost and waste, pools, prices and tier policy"
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
                      .map(describeCluster)
                      .join(', ')}`}
              </Typography>
            </Grid>
            <Grid item xs={12}>
              <ClusterFilter
                clusters={value.clusters}
                value={cluster}
                onChange={setCluster}
              />
            </Grid>
            <Grid item xs={12}>
              <PendingApprovalsTable
                refreshKey={refreshKey}
                onDecided={refresh}
              />
            </Grid>
            <Grid item xs={12}>
              <ServicesNeedingAttentionTable refreshKey={refreshKey} />
            </Grid>
            <Grid item xs={12}>
              <TeamQuotaUsageTable
                teams={value.platform.teams.map(t => t.name)}
                pools={pools.map(p => p.name)}
                refreshKey={refreshKey}
                onChanged={refresh}
              />
            </Grid>
            <Grid item xs={12}>
              <CostOverviewSection
                refreshKey={refreshKey}
                cluster={cluster === ALL_CLUSTERS ? undefined : cluster}
              />
            </Grid>
            <Grid item xs={12}>
              <PlatformChecksSection />
            </Grid>
            <Grid item xs={12}>
              <PoolsTable pools={pools} />
            </Grid>
            <Grid item xs={12}>
              <PoolSubscriptionSection refreshKey={refreshKey} />
            </Grid>
            <Grid item xs={12}>
              <TierPolicyTable environments={value.platform.environments} />
            </Grid>
            <Grid item xs={12}>
              <AuditEventsTable
                refreshKey={refreshKey}
                teams={value.platform.teams.map(t => t.name)}
              />
            </Grid>
          </Grid>
        )}
      </Content>
    </Page>
  );
}
