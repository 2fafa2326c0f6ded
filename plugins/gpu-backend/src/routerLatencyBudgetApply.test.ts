import { devSummariser } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import { settledService } from './__testUtils__/settledService';
import { setupFakeClusterServer } from './__testUtils__/setupFakeClusterServer';
import { startApplyClusterBackend } from './__testUtils__/startApplyClusterBackend';

jest.setTimeout(30_000);

const TEAM = 'ml-platform';
const RULE = `/apis/monitoring.coreos.com/v1/namespaces/${TEAM}/prometheusrules/summariser-latency`;
const DEPLOYMENT = `/apis/apps/v1/namespaces/${TEAM}/deployments/summariser`;

const server = setupFakeClusterServer();

describe('the latency budget rule on the cluster', () => {
  it('is applied with a service that states a budget and deleted with it', async () => {
    const { api, http } = await startApplyClusterBackend(server, {
      groups: [TEAM],
      gpu: { alerts: { labels: { release: 'kube-prometheus-stack' } } },
    });
    const created = await http
      .post('/api/gpu/services')
      .send({
        request: { ...devSummariser, latencyBudget: { p95Seconds: 2 } },
      })
      .expect(201);
    expect((await settledService(http, created.body.id)).status).toBe(
      'starting',
    );
    const rule = api.live(RULE) as
      | {
          metadata: { labels: Record<string, string> };
          spec: { groups: Array<{ rules: Array<{ expr: string }> }> };
        }
      | undefined;
    expect(rule?.metadata.labels).toMatchObject({
      release: 'kube-prometheus-stack',
      'gpu.backstage.io/service-id': created.body.id,
    });
    expect(rule?.spec.groups[0].rules[0].expr).toMatch(/ > 2$/);

    await http.delete(`/api/gpu/services/${created.body.id}`).expect(200);
    expect(await settledService(http, created.body.id)).toMatchObject({
      status: 'deleted',
    });
    expect(
      api.requests.filter(r => r.method === 'DELETE').map(r => r.path),
    ).toContain(RULE);
    expect(api.live(RULE)).toBeUndefined();
    expect(api.live(DEPLOYMENT)).toBeUndefined();
  });
});
