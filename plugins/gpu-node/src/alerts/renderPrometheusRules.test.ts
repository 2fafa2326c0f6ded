import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import {
  DCGM,
  demoPlatformConfig,
  parsePlatform,
  parsePlatformOperations,
  VLLM,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { renderPlatformManifests } from '../renderPlatformManifests';
import { promtools } from '../__testUtils__/promtools';
import { validateManifests } from '../__testUtils__/validateManifests';
import { PrometheusRule } from './types';

function render(alerts?: Record<string, unknown>) {
  const raw: unknown = { ...demoPlatformConfig, alerts };
  const platform = parsePlatform(raw);
  return renderPlatformManifests(platform, {
    operations: parsePlatformOperations(raw, platform),
  }).filter((o): o is PrometheusRule => o.kind === 'PrometheusRule');
}

const tools = promtools();
const dir = mkdtempSync(join(tmpdir(), 'gpu-alerts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs promtool with a file of `content` (YAML); its output and exit status. */
function promtool(
  path: string,
  args: string[],
  files: Record<string, unknown>,
) {
  for (const [name, content] of Object.entries(files)) {
    writeFileSync(join(dir, name), stringify(content));
  }
  const result = spawnSync(path, args, { cwd: dir, encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

const rulesFile = (rule: PrometheusRule) => ({ groups: rule.spec.groups });

describe('PrometheusRules of the DCGM and vLLM alerts', () => {
  it('renders one cluster-wide rule in the monitoring namespace by default, with the metric names the usage views query', () => {
    const rules = render();
    expect(
      rules.map(r => `${r.metadata.namespace}/${r.metadata.name}`),
    ).toEqual(['monitoring/gpu-alerts']);
    const exprs = Object.fromEntries(
      rules[0].spec.groups.flatMap(g => g.rules).map(r => [r.alert, r]),
    );
    expect(Object.keys(exprs)).toEqual([
      'GpuProductionCardUnderutilised',
      'GpuMemoryNearlyFull',
      'GpuTemperatureHigh',
      'GpuXidError',
      'VllmQueueBacklog',
    ]);
    expect(exprs.GpuProductionCardUnderutilised.expr).toContain(DCGM.gpuUtil);
    expect(exprs.GpuProductionCardUnderutilised.expr).toContain(
      'label_kueue_x_k8s_io_priority_class=~"gpu-production"',
    );
    expect(exprs.GpuProductionCardUnderutilised.for).toBe('30m');
    expect(exprs.GpuMemoryNearlyFull.expr).toBe(
      `${DCGM.fbUsed} / (${DCGM.fbUsed} + ${DCGM.fbFree}) > 0.95`,
    );
    expect(exprs.GpuTemperatureHigh).toMatchObject({
      expr: `${DCGM.temperature} > 85`,
      for: '10m',
    });
    expect(exprs.GpuXidError.expr).toBe(`${DCGM.xid} > 0`);
    expect(exprs.VllmQueueBacklog).toMatchObject({
      expr: `sum by (namespace, model_name) (${VLLM.waiting}) > 10`,
      for: '5m',
    });
    expect(validateManifests(rules)).toEqual([]);
  });

  it('renders one rule per team in its first namespace, matching the team namespaces, with the configured labels and queue threshold', () => {
    const rules = render({
      scope: 'team',
      labels: { release: 'kube-prometheus-stack' },
      queueWaitingAbove: 25,
      queueFor: '10m',
    });
    expect(
      rules.map(r => `${r.metadata.namespace}/${r.metadata.name}`),
    ).toEqual([
      'ml-platform/gpu-alerts-ml-platform',
      'search/gpu-alerts-search',
    ]);
    const search = rules[1];
    expect(search.metadata.labels).toMatchObject({
      release: 'kube-prometheus-stack',
      'gpu.backstage.io/team': 'search',
    });
    const all = search.spec.groups.flatMap(g => g.rules);
    for (const rule of all) {
      expect(rule.expr).toContain('namespace=~"search|batch"');
      expect(rule.labels.team).toBe('search');
    }
    expect(all.find(r => r.alert === 'VllmQueueBacklog')).toMatchObject({
      expr: `sum by (namespace, model_name) (${VLLM.waiting}{namespace=~"search|batch"}) > 25`,
      for: '10m',
    });
    expect(validateManifests(rules)).toEqual([]);
  });

  it('renders none when gpu.alerts.enabled is false, and refuses unknown environments and bad durations', () => {
    expect(render({ enabled: false })).toEqual([]);
    expect(() => render({ productionEnvironments: ['prod'] })).toThrow(
      /gpu.alerts.productionEnvironments: unknown environment "prod"; allowed: dev, staging or production/,
    );
    expect(() => render({ queueFor: 'five minutes' })).toThrow(
      /gpu.alerts.queueFor: must be a duration such as 5m/,
    );
    expect(() => render({ scope: 'namespace' })).toThrow(/gpu.alerts.scope/);
  });

  it.each(tools.map(t => [t.version, t.path]))(
    'promtool %s accepts every rule group, cluster-wide and per team',
    (_, path) => {
      for (const [i, rule] of [
        ...render(),
        ...render({ scope: 'team' }),
      ].entries()) {
        const result = promtool(path, ['check', 'rules', `rules-${i}.yaml`], {
          [`rules-${i}.yaml`]: rulesFile(rule),
        });
        expect(result).toEqual({
          status: 0,
          output: expect.stringMatching(/SUCCESS: 5 rules found/),
        });
      }
      // and rejects a broken expression, so the check can fail
      const broken = render()[0];
      broken.spec.groups[0].rules[0].expr = `${DCGM.gpuUtil} <`;
      expect(
        promtool(path, ['check', 'rules', 'broken.yaml'], {
          'broken.yaml': rulesFile(broken),
        }).status,
      ).not.toBe(0);
    },
  );

  it.each(tools.map(t => [t.version, t.path]))(
    'promtool %s: an idle production card alerts after 30 minutes, an idle dev card and a busy production card never',
    (_, path) => {
      const rule = render()[0];
      const card = (pod: string, gpu: string) =>
        `${DCGM.gpuUtil}{namespace="ml-serving",pod="${pod}",gpu="${gpu}",Hostname="node-1"}`;
      const podLabels = (pod: string, priorityClass: string) =>
        `kube_pod_labels{namespace="ml-serving",pod="${pod}",label_kueue_x_k8s_io_priority_class="${priorityClass}"}`;
      const result = promtool(path, ['test', 'rules', 'test.yaml'], {
        'rules.yaml': rulesFile(rule),
        'test.yaml': {
          rule_files: ['rules.yaml'],
          evaluation_interval: '1m',
          tests: [
            {
              interval: '1m',
              input_series: [
                { series: card('idle-prod', '0'), values: '5x60' },
                {
                  series: podLabels('idle-prod', 'gpu-production'),
                  values: '1x60',
                },
                { series: card('idle-dev', '1'), values: '5x60' },
                { series: podLabels('idle-dev', 'gpu-dev'), values: '1x60' },
                { series: card('busy-prod', '2'), values: '80x60' },
                {
                  series: podLabels('busy-prod', 'gpu-production'),
                  values: '1x60',
                },
              ],
              alert_rule_test: [
                {
                  eval_time: '29m',
                  alertname: 'GpuProductionCardUnderutilised',
                  exp_alerts: [],
                },
                {
                  eval_time: '31m',
                  alertname: 'GpuProductionCardUnderutilised',
                  exp_alerts: [
                    {
                      exp_labels: {
                        severity: 'warning',
                        namespace: 'ml-serving',
                        pod: 'idle-prod',
                        gpu: '0',
                        Hostname: 'node-1',
                      },
                      exp_annotations: {
                        summary: 'Production GPU below 20% utilisation for 30m',
                        description:
                          'GPU 0 on node-1 (pod ml-serving/idle-prod) has been below 20% utilisation for 30m: 5%. Right-size the service to a smaller slice or fewer replicas.',
                      },
                    },
                  ],
                },
              ],
            },
          ],
        },
      });
      expect(result).toEqual({
        status: 0,
        output: expect.stringMatching(/SUCCESS/),
      });
    },
  );
});
