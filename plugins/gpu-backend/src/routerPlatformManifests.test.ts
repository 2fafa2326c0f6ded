import { mockServices, startTestBackend } from '@backstage/backend-test-utils';
import {
  allowanceFromConfig,
  demoPlatformConfig,
  parsePlatform,
  parsePlatformOperations,
} from '@gpu-platform/backstage-plugin-gpu-common';
import request from 'supertest';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { gpuPlugin } from './plugin';
import { renderPlatformObjects } from './reconciler';
import {
  asUser,
  demoUserInfo,
  realPermissionPolicy,
} from './__testUtils__/demoUsers';
import { setupFakeClusterServer } from './__testUtils__/setupFakeClusterServer';
import { startApplyClusterBackend } from './__testUtils__/startApplyClusterBackend';
import { databaseClosedOnShutdown } from './testUtils/databaseClosedOnShutdown';

jest.setTimeout(30_000);

const fakeCluster = setupFakeClusterServer();

/** The demo platform with a GitOps cluster, behind the permission backend with the app's policy. */
async function start(gpu: Record<string, unknown> = {}) {
  const { server } = await startTestBackend({
    features: [
      databaseClosedOnShutdown,
      gpuPlugin,
      mockServices.rootConfig.factory({
        data: {
          gpu: {
            ...demoPlatformConfig,
            clusters: [{ name: 'gpu-gitops', mode: 'gitops' }],
            ...gpu,
          },
          permission: { enabled: true },
        },
      }),
      demoUserInfo(),
      ...realPermissionPolicy(),
    ],
  });
  return request(server);
}

const manifestsOf = (http: ReturnType<typeof request>, cluster: string) =>
  http
    .get(`/api/gpu/platform/manifests?cluster=${cluster}`)
    .set('Authorization', asUser('alice'));

describe('GET /platform/manifests', () => {
  it('answers every platform object as files, rendered with the stored quotas, that parse back to the same objects', async () => {
    const http = await start();
    const platform = parsePlatform(demoPlatformConfig);
    const l4Quota = { ...platform.teams[0].gpuQuota, 'l4-ondemand': 2 };
    await http
      .put('/api/gpu/teams/ml-platform/quota')
      .set('Authorization', asUser('alice'))
      .send({ pools: l4Quota, monthlyBudget: '60000' })
      .expect(200);

    const res = await manifestsOf(http, 'gpu-gitops').expect(200);
    expect(res.body).toMatchObject({
      cluster: 'gpu-gitops',
      mode: 'gitops',
      absent: [],
    });
    const files: { path: string; content: string }[] = res.body.files;
    const paths = files.map(f => f.path);
    expect(paths.at(-1)).toBe('kustomization.yaml');
    expect(new Set(paths.map(p => p.split('/')[0]))).toEqual(
      new Set([
        'gpu-operator',
        'kueue',
        'karpenter',
        'monitoring',
        'kustomization.yaml',
      ]),
    );
    expect(paths).toEqual(
      expect.arrayContaining([
        'gpu-operator/configmap-gpu-operator-device-plugin-config.yaml',
        'kueue/clusterqueue-gpu-ml-platform.yaml',
        'kueue/localqueue-ml-serving-gpu-ml-platform.yaml',
        'karpenter/nodepool-l4-ondemand.yaml',
      ]),
    );
    const kustomization = parseYaml(files.at(-1)!.content);
    expect(kustomization).toEqual({
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      resources: paths.slice(0, -1),
    });

    const expected = renderPlatformObjects(
      platform,
      platform.teams.map(team =>
        allowanceFromConfig(
          team.name === 'ml-platform' ? { ...team, gpuQuota: l4Quota } : team,
        ),
      ),
      parsePlatformOperations(demoPlatformConfig, platform),
    );
    const parsed = files.slice(0, -1).map(file => {
      const documents = parseAllDocuments(file.content);
      expect(documents).toHaveLength(1);
      return documents[0].toJS();
    });
    expect(parsed).toEqual(JSON.parse(JSON.stringify(expected)));
    const queue = parsed.find(
      o => o.kind === 'ClusterQueue' && o.metadata.name === 'gpu-ml-platform',
    );
    const l4 = queue.spec.resourceGroups
      .flatMap((g: any) => g.flavors)
      .find((f: any) => f.name === 'l4-ondemand');
    expect(l4.resources).toContainEqual(
      expect.objectContaining({ name: 'nvidia.com/gpu', nominalQuota: '2' }),
    );
  });

  it('says which parts are absent and why, and writes no file for them', async () => {
    const http = await start({
      karpenter: { enabled: false },
      alerts: { enabled: false },
    });
    const res = await manifestsOf(http, 'gpu-gitops').expect(200);
    expect(res.body.absent).toEqual([
      {
        part: 'karpenter',
        reason: expect.stringMatching(/No pool is managed by Karpenter/),
      },
      {
        part: 'monitoring',
        reason: expect.stringMatching(/Alerts are disabled/),
      },
    ]);
    const dirs = new Set(
      res.body.files.map((f: { path: string }) => f.path.split('/')[0]),
    );
    expect(dirs).toEqual(
      new Set(['gpu-operator', 'kueue', 'kustomization.yaml']),
    );
  });

  it('refuses callers without gpu.quota.read, unknown clusters and a missing cluster', async () => {
    const http = await start();
    const denied = await http
      .get('/api/gpu/platform/manifests?cluster=gpu-gitops')
      .set('Authorization', asUser('bob'))
      .expect(403);
    expect(denied.body.error).toMatchObject({
      name: 'NotAllowedError',
      message: 'You are not allowed to read the platform manifests',
    });
    const unknown = await manifestsOf(http, 'gpu-us').expect(400);
    expect(unknown.body.error).toMatchObject({
      name: 'InputError',
      message: "Unknown cluster 'gpu-us'; configured clusters are gpu-gitops",
    });
    const missing = await http
      .get('/api/gpu/platform/manifests')
      .set('Authorization', asUser('alice'))
      .expect(400);
    expect(missing.body.error.message).toMatch(/cluster/);
  });

  it('refuses a cluster Backstage applies to, and touches nothing in it', async () => {
    const { api, http } = await startApplyClusterBackend(fakeCluster, {
      groups: ['ml-platform'],
      // The platform reconciler would apply its objects on its own at any moment (a quota written at start-up triggers
      // it): with nothing to deliver, every write to the cluster would be the route's.
      gpu: { reconcile: { deliver: [] } },
    });
    const before = api.requests.length;
    const res = await http
      .get('/api/gpu/platform/manifests?cluster=gpu-eu')
      .expect(400);
    expect(res.body.error.message).toBe(
      "Cluster 'gpu-eu' is in apply mode: Backstage applies its platform objects itself, so they are not exported for GitOps",
    );
    expect(api.requests.slice(before).filter(r => r.method !== 'GET')).toEqual(
      [],
    );
  });
});
