import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubernetesObject } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import {
  ServiceRequest,
  VLLM,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { PrometheusRule } from '../alerts/types';
import { renderServiceManifests } from '../renderServiceManifests';
import { demoPlatform, fittingPlacement } from '../__testUtils__/platforms';
import { promtools } from '../__testUtils__/promtools';
import { validateManifests } from '../__testUtils__/validateManifests';
import { ServiceRenderOptions } from './types';

const summariser: ServiceRequest = {
  name: 'summariser',
  team: 'ml-platform',
  model: 'llama-3.2-3b',
  runtime: 'vllm',
  maxModelLen: 4096,
  concurrency: 8,
  replicas: 1,
  environment: 'production',
  latencyBudget: { p95Seconds: 2 },
};

const alerts = { labels: { release: 'kube-prometheus-stack' } };

function render(
  changes: Partial<ServiceRequest> = {},
  options: Partial<ServiceRenderOptions> = { alerts },
): KubernetesObject[] {
  const platform = demoPlatform();
  const asked = { ...summariser, ...changes };
  return renderServiceManifests(
    platform,
    asked,
    fittingPlacement(platform, asked, s => s.tier === 'dedicated'),
    { serviceId: `id-${asked.name}`, ...options },
  );
}

const rulesOf = (objects: KubernetesObject[]) =>
  objects.filter((o): o is PrometheusRule => o.kind === 'PrometheusRule');

describe('latency budget alert rule of a service', () => {
  it('renders a PrometheusRule with the service when its request states a budget and alerts are on', () => {
    const objects = render();
    const rules = rulesOf(objects);
    expect(rules).toHaveLength(1);
    const [rule] = rules;
    expect(rule.metadata).toMatchObject({
      name: 'summariser-latency',
      namespace: 'ml-platform',
      labels: {
        release: 'kube-prometheus-stack',
        'app.kubernetes.io/instance': 'summariser',
        'gpu.backstage.io/service-id': 'id-summariser',
      },
    });
    expect(rule.spec.groups).toEqual([
      {
        name: 'gpu-latency-budget',
        rules: [
          {
            alert: 'VllmLatencyBudgetExceeded',
            expr: `histogram_quantile(0.95, sum by (namespace, model_name, le) (rate(${VLLM.e2eLatency}_bucket{namespace="ml-platform",model_name="summariser"}[5m]))) > 2`,
            for: '10m',
            labels: {
              severity: 'warning',
              team: 'ml-platform',
              service: 'summariser',
            },
            annotations: expect.objectContaining({
              summary: 'p95 request latency above the 2 s budget for 10m',
            }),
          },
        ],
      },
    ]);
    expect(validateManifests(objects)).toEqual([]);
  });

  it('renders none without a budget, without alert settings, or for Ollama', () => {
    expect(rulesOf(render({ latencyBudget: undefined }))).toEqual([]);
    expect(rulesOf(render({}, {}))).toEqual([]);
    expect(
      rulesOf(render({ runtime: 'ollama', model: 'llama-3.2-3b' })),
    ).toEqual([]);
  });

  describe.each(promtools().map(t => [t.version, t.path]))(
    'promtool %s',
    (_, promtool) => {
      const dir = mkdtempSync(join(tmpdir(), 'gpu-latency-budget-'));
      afterAll(() => rmSync(dir, { recursive: true, force: true }));

      function run(args: string[], files: Record<string, unknown>) {
        for (const [name, content] of Object.entries(files)) {
          writeFileSync(join(dir, name), stringify(content));
        }
        const result = spawnSync(promtool, args, {
          cwd: dir,
          encoding: 'utf8',
        });
        return {
          status: result.status,
          output: `${result.stdout}${result.stderr}`,
        };
      }

      /** The rules file of one service's PrometheusRule. */
      const rulesFile = (changes: Partial<ServiceRequest>) => ({
        groups: rulesOf(render(changes))[0].spec.groups,
      });

      /**
       * The histogram of a service answering one request a second, each taking a time in the bucket `(below, upTo]`
       * (vLLM's buckets 0.5, 1, 2, 2.5, 5 and +Inf); `upTo` undefined: no request at all.
       */
      function histogram(service: string, upTo: string | undefined) {
        const bounds = ['0.5', '1', '2', '2.5', '5', '+Inf'];
        const reached = upTo ? bounds.indexOf(upTo) : bounds.length;
        return bounds.map((le, i) => ({
          series: `${VLLM.e2eLatency}_bucket{namespace="ml-platform",model_name="${service}",pod="${service}-7d9f8-abcde",le="${le}"}`,
          values: i >= reached ? '0+60x30' : '0x30',
        }));
      }

      it('accepts the rule', () => {
        expect(
          run(['check', 'rules', 'check.yaml'], {
            'check.yaml': rulesFile({}),
          }),
        ).toEqual({
          status: 0,
          output: expect.stringMatching(/SUCCESS: 1 rules found/),
        });
      });

      it('fires when the p95 is above the budget for 10 minutes, and stays quiet under it, when idle and under a larger budget', () => {
        const result = run(['test', 'rules', 'test.yaml'], {
          // p95 of requests in (2.5, 5] s: 2.5 + 0.95 x 2.5 = 4.875 s
          'slow.yaml': rulesFile({}),
          // p95 in (0.5, 1] s: 0.975 s
          'fast.yaml': rulesFile({ name: 'fast' }),
          'idle.yaml': rulesFile({ name: 'idle' }),
          // 4.875 s again, under a 5 s budget
          'lenient.yaml': rulesFile({
            name: 'lenient',
            latencyBudget: { p95Seconds: 5 },
          }),
          'test.yaml': {
            rule_files: ['slow.yaml', 'fast.yaml', 'idle.yaml', 'lenient.yaml'],
            evaluation_interval: '1m',
            tests: [
              {
                interval: '1m',
                input_series: [
                  ...histogram('summariser', '5'),
                  ...histogram('fast', '1'),
                  ...histogram('idle', undefined),
                  ...histogram('lenient', '5'),
                ],
                alert_rule_test: [
                  // above the budget, but not for 10 minutes yet
                  {
                    eval_time: '8m',
                    alertname: 'VllmLatencyBudgetExceeded',
                    exp_alerts: [],
                  },
                  {
                    eval_time: '20m',
                    alertname: 'VllmLatencyBudgetExceeded',
                    exp_alerts: [
                      {
                        exp_labels: {
                          severity: 'warning',
                          team: 'ml-platform',
                          service: 'summariser',
                          namespace: 'ml-platform',
                          model_name: 'summariser',
                        },
                        exp_annotations: {
                          summary:
                            'p95 request latency above the 2 s budget for 10m',
                          description:
                            'summariser in ml-platform: the p95 end-to-end request latency over the last 5m is 4.875 s, above its budget of 2 s. Check the queue depth, add replicas, or move to a tier that does not share the GPU.',
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
      });

      it('fails the test when the slow service is expected quiet, so the check can fail', () => {
        const result = run(['test', 'rules', 'wrong.yaml'], {
          'slow.yaml': rulesFile({}),
          'wrong.yaml': {
            rule_files: ['slow.yaml'],
            evaluation_interval: '1m',
            tests: [
              {
                interval: '1m',
                input_series: histogram('summariser', '5'),
                alert_rule_test: [
                  {
                    eval_time: '20m',
                    alertname: 'VllmLatencyBudgetExceeded',
                    exp_alerts: [],
                  },
                ],
              },
            ],
          },
        });
        expect(result.status).not.toBe(0);
      });
    },
  );
});
