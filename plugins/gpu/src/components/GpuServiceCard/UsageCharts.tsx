import { ServiceUsage } from '@gpu-platform/backstage-plugin-gpu-common';
import Box from '@material-ui/core/Box';
import Typography from '@material-ui/core/Typography';
import { useTheme } from '@material-ui/core/styles';
import { ReactElement } from 'react';
import {
  Area,
  AreaChart,
  CartesianGrid,
  ComposedChart,
  Line,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import { formatGib, formatPercent, formatRate } from '../common';
import { axisTimeFormatter } from './formatAxisTime';

const GIB = 1024 ** 3;
const HEIGHT = 160;
const CHART_MARGIN = { top: 8, right: 8, bottom: 0, left: 0 };

/** The time axis every chart shares (props for recharts' XAxis, which must stay a direct child of the chart). */
function timeAxis(tick: (t: number) => string) {
  return {
    dataKey: 't',
    type: 'number' as const,
    scale: 'time' as const,
    domain: ['dataMin', 'dataMax'],
    tickFormatter: tick,
  };
}

function ChartFrame(props: {
  title: string;
  summary: string;
  children: ReactElement;
}) {
  return (
    <Box role="img" aria-label={`${props.title}: ${props.summary}`} mb={2}>
      <Typography variant="subtitle2">{props.title}</Typography>
      <Typography variant="caption" color="textSecondary">
        {props.summary}
      </Typography>
      <ResponsiveContainer width="100%" height={HEIGHT}>
        {props.children}
      </ResponsiveContainer>
    </Box>
  );
}

/** Utilisation of the service's GPU share over the window, 0 to 100%. */
export function UtilisationChart(props: { usage: ServiceUsage }) {
  const theme = useTheme();
  const { usage } = props;
  const tick = axisTimeFormatter(usage.window.durationSeconds);
  const data = usage.series.utilisation.map(p => ({
    t: p.timestamp,
    percent: p.value * 100,
  }));
  return (
    <ChartFrame
      title="GPU utilisation"
      summary={
        usage.utilisation
          ? `average ${formatPercent(usage.utilisation.value)} over ${
              usage.window.label
            }`
          : 'no utilisation series'
      }
    >
      <AreaChart data={data} margin={CHART_MARGIN}>
        <CartesianGrid strokeDasharray="3 3" />
        <XAxis {...timeAxis(tick)} />
        <YAxis domain={[0, 100]} unit="%" width={44} />
        <Tooltip
          labelFormatter={t => tick(Number(t))}
          formatter={(v: number) => [`${v.toFixed(1)}%`, 'utilisation']}
        />
        <Area
          type="monotone"
          dataKey="percent"
          stroke={theme.palette.primary.main}
          fill={theme.palette.primary.light}
          isAnimationActive={false}
        />
      </AreaChart>
    </ChartFrame>
  );
}

/** Framebuffer memory used over the window against the memory the service's slice may use. */
export function MemoryChart(props: { usage: ServiceUsage }) {
  const theme = useTheme();
  const { usage } = props;
  const memory = usage.memory;
  const tick = axisTimeFormatter(usage.window.durationSeconds);
  const data = usage.series.memoryUsedBytes.map(p => ({
    t: p.timestamp,
    gib: p.value / GIB,
  }));
  const allocatedGib = memory ? memory.allocatedBytes / GIB : undefined;
  const peakGib = Math.max(0, ...data.map(d => d.gib));
  return (
    <ChartFrame
      title="GPU memory used vs allocated"
      summary={
        memory
          ? `peak ${formatGib(memory.peakUsedBytes)} of ${formatGib(
              memory.allocatedBytes,
            )} allocated (${formatPercent(memory.peakFraction)})`
          : 'no memory series'
      }
    >
      <AreaChart data={data} margin={CHART_MARGIN}>
        <CartesianGrid strokeDasharray="3 3" />
        <XAxis {...timeAxis(tick)} />
        <YAxis
          domain={[0, Math.ceil(Math.max(allocatedGib ?? 0, peakGib) * 1.1)]}
          unit=" GiB"
          width={60}
        />
        <Tooltip
          labelFormatter={t => tick(Number(t))}
          formatter={(v: number) => [`${v.toFixed(1)} GiB`, 'used']}
        />
        <Area
          type="monotone"
          dataKey="gib"
          stroke={theme.palette.secondary.main}
          fill={theme.palette.secondary.light}
          isAnimationActive={false}
        />
        {allocatedGib !== undefined && (
          <ReferenceLine
            y={allocatedGib}
            stroke={theme.palette.error.main}
            strokeDasharray="6 3"
            label={{
              value: 'allocated',
              position: 'insideTopRight',
              fontSize: 11,
            }}
          />
        )}
      </AreaChart>
    </ChartFrame>
  );
}

/** Generated tokens per second and requests waiting in vLLM's queue over the window. */
export function ThroughputChart(props: { usage: ServiceUsage }) {
  const theme = useTheme();
  const { usage } = props;
  const tick = axisTimeFormatter(usage.window.durationSeconds);
  const queue = new Map(
    usage.series.queueDepth.map(p => [p.timestamp, p.value]),
  );
  const data = usage.series.generatedTokensPerSecond.map(p => ({
    t: p.timestamp,
    tokens: p.value,
    queue: queue.get(p.timestamp),
  }));
  return (
    <ChartFrame
      title="Tokens/s and queue depth"
      summary={
        usage.tokens
          ? `${formatRate(
              usage.tokens.generatedPerSecond,
            )} output tokens/s on average`
          : 'no token series'
      }
    >
      <ComposedChart data={data} margin={CHART_MARGIN}>
        <CartesianGrid strokeDasharray="3 3" />
        <XAxis {...timeAxis(tick)} />
        <YAxis yAxisId="tokens" width={52} />
        <YAxis
          yAxisId="queue"
          orientation="right"
          allowDecimals={false}
          width={32}
        />
        <Tooltip labelFormatter={t => tick(Number(t))} />
        <Area
          yAxisId="tokens"
          type="monotone"
          dataKey="tokens"
          name="tokens/s"
          stroke={theme.palette.primary.main}
          fill={theme.palette.primary.light}
          isAnimationActive={false}
        />
        <Line
          yAxisId="queue"
          type="stepAfter"
          dataKey="queue"
          name="waiting requests"
          stroke={theme.palette.warning.main}
          dot={false}
          isAnimationActive={false}
        />
      </ComposedChart>
    </ChartFrame>
  );
}
