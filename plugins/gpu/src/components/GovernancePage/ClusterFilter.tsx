import FormControl from '@material-ui/core/FormControl';
import InputLabel from '@material-ui/core/InputLabel';
import MenuItem from '@material-ui/core/MenuItem';
import Select from '@material-ui/core/Select';
import {
  ClusterSummary,
  Pool,
} from '@gpu-platform/backstage-plugin-gpu-common';

/** `All clusters`, or the named cluster. */
export const ALL_CLUSTERS = '';

/** A cluster in words: its name, then its labels (region, cloud, environment class) when it has any. */
export function describeCluster(cluster: ClusterSummary): string {
  const labels = [
    cluster.labels?.region,
    cluster.labels?.cloud,
    cluster.labels?.environmentClass,
  ].filter(Boolean);
  return `${cluster.name} (${[cluster.mode, ...labels].join(', ')})`;
}

/** The pools of the chosen cluster; every pool for {@link ALL_CLUSTERS}. */
export function poolsOfCluster(pools: Pool[], cluster: string): Pool[] {
  return cluster === ALL_CLUSTERS
    ? pools
    : pools.filter(pool => pool.cluster === cluster);
}

/** Picks the cluster the governance page shows the pools, quotas and cost overview of; shown only with several clusters. */
export function ClusterFilter(props: {
  clusters: ClusterSummary[];
  value: string;
  onChange: (cluster: string) => void;
}) {
  if (props.clusters.length < 2) {
    return null;
  }
  const id = 'gpu-cluster-filter';
  return (
    <FormControl size="small" variant="outlined" style={{ minWidth: 240 }}>
      <InputLabel id={id}>Cluster</InputLabel>
      <Select
        labelId={id}
        label="Cluster"
        SelectDisplayProps={{ id: `${id}-value` }}
        value={props.value}
        displayEmpty
        onChange={e => props.onChange(e.target.value as string)}
        data-testid="cluster-filter"
      >
        <MenuItem value={ALL_CLUSTERS}>All clusters</MenuItem>
        {props.clusters.map(c => (
          <MenuItem key={c.name} value={c.name}>
            {describeCluster(c)}
          </MenuItem>
        ))}
      </Select>
    </FormControl>
  );
}
