import { ServiceUsage } from '@gpu-platform/backstage-plugin-gpu-common';
import Grid from '@material-ui/core/Grid';
import Typography from '@material-ui/core/Typography';
import {
  formatGib,
  formatPercent,
  formatRate,
  useErrorColorStyles,
} from '../common';
import { describeAttribution } from './describeAttribution';
import { describeLatencyBudget } from './describeLatencyBudget';
import { Figure } from './Figure';

/**
 * The window's usage in numbers: utilisation, memory, tokens/s, queue and latency, each only when measured; the
 * latency with the service's budget when it states one (in red when over it, and shown unmeasured too).
 */
export function UsageFigures(props: { usage: ServiceUsage }) {
  const { usage } = props;
  const errorColor = useErrorColorStyles();
  const figures = [
    usage.utilisation && (
      <Figure
        key="util"
        testId="figure-utilisation"
        label="GPU utilisation (average)"
        value={formatPercent(usage.utilisation.value)}
        caption={describeAttribution(usage.utilisation)}
      />
    ),
    usage.memory && (
      <Figure
        key="memory"
        testId="figure-memory"
        label="Memory used / allocated"
        value={`${formatGib(usage.memory.usedBytes.value)} / ${formatGib(
          usage.memory.allocatedBytes,
        )}`}
        caption={`peak ${formatGib(
          usage.memory.peakUsedBytes,
        )} (${formatPercent(usage.memory.peakFraction)})`}
      />
    ),
    usage.tokens && (
      <Figure
        key="tokens"
        testId="figure-tokens"
        label="Output tokens/s"
        value={formatRate(usage.tokens.generatedPerSecond)}
        caption={`${Math.round(usage.tokens.generated).toLocaleString(
          'en-US',
        )} tokens in ${usage.window.label}${
          usage.tokens.shareOfDevice < 1
            ? `, ${formatPercent(
                usage.tokens.shareOfDevice,
              )} of the shared GPU's`
            : ''
        }`}
      />
    ),
    usage.requests && (
      <Figure
        key="queue"
        testId="figure-queue"
        label="Queue depth (now)"
        value={`${usage.requests.waiting} waiting`}
        caption={`${usage.requests.running} running${
          usage.kvCacheUsage !== undefined
            ? `, KV cache ${formatPercent(usage.kvCacheUsage)}`
            : ''
        }`}
      />
    ),
    usage.latency?.p95Seconds !== undefined && (
      <Figure
        key="latency"
        testId="figure-latency"
        label="Request latency p95"
        value={
          <Typography
            component="span"
            variant="h6"
            {...(usage.latencyBudget?.state === 'over'
              ? { className: errorColor.error }
              : { color: 'inherit' })}
          >
            {`${usage.latency.p95Seconds.toFixed(2)} s`}
          </Typography>
        }
        caption={
          [
            usage.latencyBudget && describeLatencyBudget(usage.latencyBudget),
            usage.latency.p50Seconds !== undefined &&
              `p50 ${usage.latency.p50Seconds.toFixed(2)} s`,
          ]
            .filter(Boolean)
            .join('; ') || undefined
        }
      />
    ),
    // A budget with no measured p95 still says so, and why.
    usage.latencyBudget && usage.latency?.p95Seconds === undefined && (
      <Figure
        key="latency"
        testId="figure-latency"
        label="Request latency p95"
        value="not measured"
        caption={describeLatencyBudget(usage.latencyBudget)}
      />
    ),
    usage.xid && usage.xid.errorSamples > 0 && (
      <Figure
        key="xid"
        testId="figure-xid"
        label="XID errors"
        value={
          <Typography
            component="span"
            variant="h6"
            className={errorColor.error}
          >
            {usage.xid.lastCode !== undefined
              ? `XID ${usage.xid.lastCode}`
              : 'reported'}
          </Typography>
        }
        caption={`${usage.xid.errorSamples} sample(s) with an error in ${usage.window.label}`}
      />
    ),
  ].filter(Boolean);
  return (
    <Grid container spacing={2}>
      {figures.map((figure, i) => (
        <Grid item xs={6} key={i}>
          {figure}
        </Grid>
      ))}
    </Grid>
  );
}
