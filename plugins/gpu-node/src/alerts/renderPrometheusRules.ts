import { AlertSettings, Platform } from '@gpu-platform/backstage-plugin-gpu-common';
import { ownershipLabels } from '../labels';
import { stableName } from '../names/stableName';
import { alertRuleGroups } from './alertRuleGroups';
import { PrometheusRule } from './types';

/** Name of the cluster-wide rule; team rules are `gpu-alerts-<team>`. */
const RULE_NAME = 'gpu-alerts';

/**
 * The PrometheusRules of the alerts (see {@link alertRuleGroups}): with scope `cluster`, one in `settings.namespace`
 * for every series; with scope `team`, one per team in the team's first namespace for the series of its namespaces,
 * with a `team` label on each alert. Each carries `settings.labels` (for the Prometheus's `ruleSelector`).
 *
 * @public
 */
export function renderPrometheusRules(
  platform: Platform,
  settings: AlertSettings,
): PrometheusRule[] {
  const rule = (
    name: string,
    namespace: string,
    groups: PrometheusRule['spec']['groups'],
    team?: string,
  ): PrometheusRule => ({
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: {
      name,
      namespace,
      labels: { ...settings.labels, ...ownershipLabels('platform', { team }) },
    },
    spec: { groups },
  });
  if (settings.scope === 'cluster') {
    return [rule(RULE_NAME, settings.namespace, alertRuleGroups(settings))];
  }
  return platform.teams.map(team =>
    rule(
      stableName([RULE_NAME, team.name]),
      team.namespaces[0],
      alertRuleGroups(settings, {
        namespaces: team.namespaces,
        team: team.name,
      }),
      team.name,
    ),
  );
}
