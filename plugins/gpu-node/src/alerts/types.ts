import type { V1ObjectMeta } from '@kubernetes/client-node';

/**
 * One alerting rule of a Prometheus rule group.
 *
 * @public
 */
export interface AlertingRule {
  alert: string;
  expr: string;
  for?: string;
  labels: Record<string, string>;
  annotations: { summary: string; description: string };
}

/**
 * A Prometheus rule group (the `groups[]` of a rules file, and of a PrometheusRule's spec).
 *
 * @public
 */
export interface AlertRuleGroup {
  name: string;
  rules: AlertingRule[];
}

/**
 * Prometheus operator `PrometheusRule` (`monitoring.coreos.com/v1`, namespaced).
 *
 * @public
 */
export interface PrometheusRule {
  apiVersion: 'monitoring.coreos.com/v1';
  kind: 'PrometheusRule';
  metadata: V1ObjectMeta;
  spec: { groups: AlertRuleGroup[] };
}
