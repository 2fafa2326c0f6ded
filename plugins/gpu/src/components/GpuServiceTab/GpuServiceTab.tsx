import Grid from '@material-ui/core/Grid';
import { GpuServiceCard } from '../GpuServiceCard';

/**
 * The entity's GPU tab: the GPU card full width, with what the cluster says (admission, pending and why, pods,
 * warnings; or that nothing is applied), usage, cost, recommendations and the actions.
 */
export function GpuServiceTab() {
  return (
    <Grid container spacing={3}>
      <Grid item xs={12}>
        <GpuServiceCard />
      </Grid>
    </Grid>
  );
}
