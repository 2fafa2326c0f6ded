import {
  AlertSettings,
  DCGM,
  VLLM,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { KUEUE_LABELS } from '../service/serviceLabels';
import { AlertRuleGroup, AlertingRule } from './types';

/**
 * Thresholds of the DCGM alerts.
 *
 * @public
 */
export const DCGM_ALERT_THRESHOLDS = {
  /** A production card below this GPU utilisation (percent) ... */
  lowUtilisationPercent: 20,
  /** ... for this long is paid for and idle. */
  lowUtilisationFor: '30m',
  /** Frame-buffer memory in use above this fraction of the card's (used + free). */
  memoryFraction: 0.95,
  memoryFor: '5m',
  /** Degrees Celsius, sustained. */
  temperatureCelsius: 85,
  temperatureFor: '10m',
} as const;

/** kube-state-metrics' `kube_pod_labels` name for a pod label (allow-listed with `--metric-labels-allowlist`). */
function kubePodLabel(key: string): string {
  return `label_${key.replace(/[^a-zA-Z0-9_]/g, '_')}`;
}

/** `{a="x",b=~"y|z"}` of the matchers (nothing when there are none). */
function selector(matchers: string[]): string {
  return matchers.length > 0 ? `{${matchers.join(',')}}` : '';
}

/** A regex matcher for exactly one of `values` (DNS-1123 names: nothing to escape). */
function oneOf(label: string, values: readonly string[]): string {
  return `${label}=~"${values.join('|')}"`;
}

/**
 * The DCGM and vLLM alert rule groups, for every series (`namespaces` undefined) or for the pods of the given
 * namespaces (a team's): a production card (one whose pod's WorkloadPriorityClass is a production environment's) below
 * 20% utilisation for 30 minutes, frame-buffer memory above 95% of the card's, temperature above 85 °C for 10
 * minutes, any XID error, and a vLLM queue of more than `queueWaitingAbove` waiting requests for `queueFor`. Metric
 * names are gpu-common's `DCGM` and `VLLM`, the ones the usage views query.
 *
 * @public
 */
export function alertRuleGroups(
  settings: AlertSettings,
  scope: { namespaces?: readonly string[]; team?: string } = {},
): AlertRuleGroup[] {
  const t = DCGM_ALERT_THRESHOLDS;
  const matchers = scope.namespaces
    ? [oneOf('namespace', scope.namespaces)]
    : [];
  const sel = selector(matchers);
  const labels = (severity: string) => ({
    severity,
    ...(scope.team ? { team: scope.team } : {}),
  });
  const where = 'GPU {{ $labels.gpu }} on {{ $labels.Hostname }}';
  const dcgm: AlertingRule[] = [];
  if (settings.productionPriorityClasses.length > 0) {
    const production = selector([
      ...matchers,
      oneOf(
        kubePodLabel(KUEUE_LABELS.priorityClass),
        settings.productionPriorityClasses,
      ),
    ]);
    dcgm.push({
      alert: 'GpuProductionCardUnderutilised',
      expr: `avg_over_time(${DCGM.gpuUtil}${sel}[5m]) < ${t.lowUtilisationPercent} and on (namespace, pod) group by (namespace, pod) (kube_pod_labels${production})`,
      for: t.lowUtilisationFor,
      labels: labels('warning'),
      annotations: {
        summary: `Production GPU below ${t.lowUtilisationPercent}% utilisation for ${t.lowUtilisationFor}`,
        description: `${where} (pod {{ $labels.namespace }}/{{ $labels.pod }}) has been below ${t.lowUtilisationPercent}% utilisation for ${t.lowUtilisationFor}: {{ $value | humanize }}%. Right-size the service to a smaller slice or fewer replicas.`,
      },
    });
  }
  dcgm.push(
    {
      alert: 'GpuMemoryNearlyFull',
      expr: `${DCGM.fbUsed}${sel} / (${DCGM.fbUsed}${sel} + ${DCGM.fbFree}${sel}) > ${t.memoryFraction}`,
      for: t.memoryFor,
      labels: labels('warning'),
      annotations: {
        summary: `GPU frame buffer more than ${t.memoryFraction * 100}% used`,
        description: `${where} (pod {{ $labels.namespace }}/{{ $labels.pod }}) uses {{ $value | humanizePercentage }} of its frame buffer: out-of-memory errors are near.`,
      },
    },
    {
      alert: 'GpuTemperatureHigh',
      expr: `${DCGM.temperature}${sel} > ${t.temperatureCelsius}`,
      for: t.temperatureFor,
      labels: labels('warning'),
      annotations: {
        summary: `GPU above ${t.temperatureCelsius} °C for ${t.temperatureFor}`,
        description: `${where} has been at {{ $value }} °C for ${t.temperatureFor}: it throttles, and cooling may be failing.`,
      },
    },
    {
      alert: 'GpuXidError',
      expr: `${DCGM.xid}${sel} > 0`,
      labels: labels('critical'),
      annotations: {
        summary: 'GPU reported an XID error',
        description: `${where} reported XID {{ $value }}: check the driver log (dmesg) and drain the node if it repeats.`,
      },
    },
  );
  const vllm: AlertingRule[] = [
    {
      alert: 'VllmQueueBacklog',
      expr: `sum by (namespace, model_name) (${VLLM.waiting}${sel}) > ${settings.queueWaitingAbove}`,
      for: settings.queueFor,
      labels: labels('warning'),
      annotations: {
        summary: `vLLM queue above ${settings.queueWaitingAbove} waiting requests for ${settings.queueFor}`,
        description: `{{ $labels.model_name }} in {{ $labels.namespace }} has {{ $value }} requests waiting: add replicas or check the autoscaler.`,
      },
    },
  ];
  return [
    { name: 'gpu-dcgm', rules: dcgm },
    { name: 'gpu-vllm', rules: vllm },
  ];
}
