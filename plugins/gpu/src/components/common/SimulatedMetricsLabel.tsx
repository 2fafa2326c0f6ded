import { MetricsStatus } from '@gpu-platform/backstage-plugin-gpu-common';
import Chip from '@material-ui/core/Chip';
import InfoOutlinedIcon from '@material-ui/icons/InfoOutlined';

/** Words of the label, for tests and the end-to-end suite. */
export const SIMULATED_METRICS_LABEL =
  'Simulated metrics — demo data, not measured';

/**
 * A visible label on figures that come from simulated series (`metrics.simulated`: the `./scripts/start --cluster`
 * demo's generated DCGM and vLLM series, `gpu.prometheus.simulated`); nothing otherwise. An outlined chip in the text
 * colour with an info icon: the theme's secondary colour on white is below 4.5:1 (axe, in Chromium).
 */
export function SimulatedMetricsLabel(props: { metrics?: MetricsStatus }) {
  if (!props.metrics?.simulated) return null;
  return (
    <Chip
      size="small"
      variant="outlined"
      icon={<InfoOutlinedIcon />}
      label={SIMULATED_METRICS_LABEL}
      data-testid="simulated-metrics"
      title="The Prometheus of this installation holds generated series (gpu.prometheus.simulated): utilisation, tokens and waste are not measured on GPUs."
    />
  );
}
