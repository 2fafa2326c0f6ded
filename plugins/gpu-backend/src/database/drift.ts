import type { ClusterDriftReport } from '@gpu-platform/backstage-plugin-gpu-common';
import { Knex } from 'knex';

interface ClusterDriftRow {
  cluster: string;
  checked_at: Date | number | string;
  report: string;
}

/** Replaces the cluster's last report. */
export async function writeClusterDrift(
  db: Knex,
  report: ClusterDriftReport,
): Promise<void> {
  await db<ClusterDriftRow>('cluster_drift')
    .insert({
      cluster: report.cluster,
      checked_at: new Date(report.checkedAt),
      report: JSON.stringify(report),
    })
    .onConflict('cluster')
    .merge();
}

/** The last report of every cluster, by cluster name. */
export async function readClusterDrift(
  db: Knex,
): Promise<ClusterDriftReport[]> {
  const rows = await db<ClusterDriftRow>('cluster_drift').orderBy('cluster');
  return rows.map(row => JSON.parse(row.report));
}
