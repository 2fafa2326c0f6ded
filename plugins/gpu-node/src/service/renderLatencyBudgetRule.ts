import { VLLM } from '@gpu-platform/backstage-plugin-gpu-common';
import { PrometheusRule } from '../alerts/types';
import { ServiceContext } from './resolveServiceContext';
import { serviceAnnotations } from './serviceAnnotations';
import { serviceObjectNames } from './serviceNames';
import { serviceLabels } from './serviceLabels';
import { vllmMetricSelector } from './vllmArgs';

/**
 * How the latency budget alert measures: the p95 of vLLM's end-to-end latency histogram over `rateWindow`, above the
 * budget for `for`.
 *
 * @public
 */
export const LATENCY_BUDGET_ALERT = {
  alert: 'VllmLatencyBudgetExceeded',
  quantile: 0.95,
  rateWindow: '5m',
  for: '10m',
} as const;

/**
 * The PromQL of a service's latency budget alert: the p95 of `vllm:e2e_request_latency_seconds` over the last 5
 * minutes of its pods (`namespace` and the service's `model_name`), above the budget. With no request in the window
 * the quantile is NaN and the comparison drops it: an idle service does not alert.
 *
 * @public
 */
export function latencyBudgetExpr(
  namespace: string,
  modelName: string,
  p95Seconds: number,
): string {
  const a = LATENCY_BUDGET_ALERT;
  return `histogram_quantile(${
    a.quantile
  }, sum by (namespace, model_name, le) (rate(${
    VLLM.e2eLatency
  }_bucket{${vllmMetricSelector(namespace, modelName)}}[${
    a.rateWindow
  }]))) > ${p95Seconds}`;
}

/**
 * A Prometheus operator PrometheusRule with the latency budget alert of a vLLM service whose request states a
 * `latencyBudget`, when the options carry the platform's alert settings (`gpu.alerts` enabled: the cluster has the
 * Prometheus operator); it carries their labels so the Prometheus `ruleSelector` picks it up. Ollama exports no
 * latency metrics (a budget on it is refused by `validateServiceRequest`), so it gets none.
 */
export function renderLatencyBudgetRule(
  context: ServiceContext,
): PrometheusRule | undefined {
  const { request } = context;
  const budget = request.latencyBudget;
  const alerts = context.options.alerts;
  if (!budget || !alerts || request.runtime !== 'vllm') {
    return undefined;
  }
  const a = LATENCY_BUDGET_ALERT;
  const budgetText = `${budget.p95Seconds} s`;
  return {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: {
      name: serviceObjectNames(request.name).latencyRule,
      namespace: context.namespace,
      labels: { ...alerts.labels, ...serviceLabels(context) },
      annotations: serviceAnnotations(context),
    },
    spec: {
      groups: [
        {
          name: 'gpu-latency-budget',
          rules: [
            {
              alert: a.alert,
              expr: latencyBudgetExpr(
                context.namespace,
                request.name,
                budget.p95Seconds,
              ),
              for: a.for,
              labels: {
                severity: 'warning',
                team: context.team.name,
                service: request.name,
              },
              annotations: {
                summary: `p95 request latency above the ${budgetText} budget for ${a.for}`,
                description: `${request.name} in ${context.namespace}: the p95 end-to-end request latency over the last ${a.rateWindow} is {{ $value | humanize }} s, above its budget of ${budgetText}. Check the queue depth, add replicas, or move to a tier that does not share the GPU.`,
              },
            },
          ],
        },
      ],
    },
  };
}
