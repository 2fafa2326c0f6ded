import { summariserOnDedicatedL4 } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import type { KubernetesObject } from '@kubernetes/client-node';
import request from 'supertest';
import { startDemoPolicyBackend } from './__testUtils__/startDemoPolicyBackend';

jest.setTimeout(60_000);

const summariser = {
  ...summariserOnDedicatedL4,
  latencyBudget: { p95Seconds: 2 },
};

const rulesOf = (manifests: KubernetesObject[]) =>
  manifests.filter(m => m.kind === 'PrometheusRule') as Array<
    KubernetesObject & {
      spec: {
        groups: Array<{ rules: Array<{ alert: string; expr: string }> }>;
      };
    }
  >;

describe('a service latency budget through the API', () => {
  it('renders the budget alert rule with the service while gpu.alerts is on, and none when it is off', async () => {
    const server = await startDemoPolicyBackend({
      alerts: { labels: { release: 'kube-prometheus-stack' } },
    });
    const preview = await request(server)
      .post('/api/gpu/services')
      .send({ request: summariser, dryRun: true })
      .expect(200);
    const [rule, ...more] = rulesOf(preview.body.manifests);
    expect(more).toEqual([]);
    expect(rule.metadata).toMatchObject({
      name: 'summariser-latency',
      namespace: 'ml-platform',
      labels: {
        release: 'kube-prometheus-stack',
        'gpu.backstage.io/service-id': expect.any(String),
      },
    });
    expect(rule.spec.groups[0].rules).toEqual([
      expect.objectContaining({
        alert: 'VllmLatencyBudgetExceeded',
        expr: `histogram_quantile(0.95, sum by (namespace, model_name, le) (rate(vllm:e2e_request_latency_seconds_bucket{namespace="ml-platform",model_name="summariser"}[5m]))) > 2`,
      }),
    ]);

    const off = await startDemoPolicyBackend({ alerts: { enabled: false } });
    const plain = await request(off)
      .post('/api/gpu/services')
      .send({ request: summariser, dryRun: true })
      .expect(200);
    expect(rulesOf(plain.body.manifests)).toEqual([]);
  });

  it('refuses a budget on an Ollama service with a 400 that says why', async () => {
    const server = await startDemoPolicyBackend();
    const refused = await request(server)
      .post('/api/gpu/services')
      .send({ request: { ...summariser, runtime: 'ollama' }, dryRun: true })
      .expect(400);
    expect(refused.body.error).toMatchObject({
      name: 'InputError',
      message:
        'latencyBudget needs the vllm runtime: ollama exports no request latency metrics to measure or alert on; allowed: runtime vllm, or no latencyBudget',
    });
  });

  it('refuses a budget out of range, naming the field', async () => {
    const server = await startDemoPolicyBackend();
    const refused = await request(server)
      .post('/api/gpu/services')
      .send({
        request: { ...summariser, latencyBudget: { p95Seconds: 0 } },
        dryRun: true,
      })
      .expect(400);
    expect(refused.body.error.message).toMatch(/latencyBudget/);
  });

  it('reports the budget with the usage, unknown while metrics are not configured', async () => {
    const server = await startDemoPolicyBackend();
    const created = await request(server)
      .post('/api/gpu/services')
      .send({ request: summariser })
      .expect(201);
    const usage = await request(server)
      .get(`/api/gpu/services/${created.body.id}/usage?window=24h`)
      .expect(200);
    expect(usage.body.latencyBudget).toEqual({
      budgetP95Seconds: 2,
      state: 'unknown',
      unknownReason: 'metrics-unavailable',
    });

    const plain = await request(server)
      .post('/api/gpu/services')
      .send({ request: { ...summariserOnDedicatedL4, name: 'no-budget' } })
      .expect(201);
    const plainUsage = await request(server)
      .get(`/api/gpu/services/${plain.body.id}/usage?window=24h`)
      .expect(200);
    expect(plainUsage.body).not.toHaveProperty('latencyBudget');
  });
});
