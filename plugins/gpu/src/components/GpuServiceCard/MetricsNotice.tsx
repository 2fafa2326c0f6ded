import { WarningPanel } from '@backstage/core-components';
import { MetricsStatus } from '@gpu-platform/backstage-plugin-gpu-common';
import { SimulatedMetricsLabel } from '../common';

/**
 * Says why usage is missing or incomplete. Allocation cost never depends on metrics, so every state says that it is
 * still shown. Simulated metrics (the `--cluster` demo) are labelled as such, whatever the state.
 */
export function MetricsNotice(props: {
  metrics: MetricsStatus;
  windowLabel: string;
}) {
  const { metrics } = props;
  const notice = <StateNotice {...props} />;
  if (!metrics.simulated) return notice;
  return (
    <>
      <SimulatedMetricsLabel metrics={metrics} />
      {notice}
    </>
  );
}

function StateNotice(props: { metrics: MetricsStatus; windowLabel: string }) {
  const { metrics, windowLabel } = props;
  switch (metrics.state) {
    case 'available':
      return null;
    case 'not-configured':
      return (
        <WarningPanel
          defaultExpanded
          severity="info"
          title="No metrics source configured"
          message="The gpu backend has no Prometheus (gpu.prometheus.baseUrl), so usage is unavailable. Cost is the allocation from the database."
        />
      );
    case 'unavailable':
      return (
        <WarningPanel
          defaultExpanded
          severity="warning"
          title="Prometheus unavailable: usage is unavailable"
          message={`${
            metrics.reason ?? 'Prometheus did not answer'
          }. Showing the allocation cost only.`}
        />
      );
    case 'no-data':
      return (
        <WarningPanel
          defaultExpanded
          severity="info"
          title="No usage data yet"
          message={`Prometheus has no series for this service's pods in the last ${windowLabel}${
            metrics.reason ? ` (${metrics.reason})` : ''
          }. Showing the allocation cost.`}
        />
      );
    case 'partial':
      return (
        <WarningPanel
          defaultExpanded
          severity="info"
          title="Some metrics are missing"
          message={`${
            metrics.missing?.length
              ? `Missing: ${metrics.missing.join(', ')}. `
              : ''
          }${metrics.reason ?? ''}`}
        />
      );
    default:
      return null;
  }
}
