import type { JsonObject } from '@backstage/types';
import { mockServices, startTestBackend } from '@backstage/backend-test-utils';
import { demoPlatformConfig } from '@gpu-platform/backstage-plugin-gpu-common';
import request from 'supertest';
import {
  asUser,
  demoUserInfo,
  realPermissionPolicy,
} from './__testUtils__/demoUsers';
import { setupFakeClusterServer } from './__testUtils__/setupFakeClusterServer';
import { startApplyClusterBackend } from './__testUtils__/startApplyClusterBackend';
import { gpuPlugin } from './plugin';
import { databaseClosedOnShutdown } from './testUtils/databaseClosedOnShutdown';

// Each test starts a backend with the permission framework: seconds on a loaded machine.
jest.setTimeout(30_000);

const server = setupFakeClusterServer();

/** The plugin behind the permission backend with the app's policy, on the given `gpu` config. */
async function start(gpu: JsonObject) {
  const backend = await startTestBackend({
    features: [
      databaseClosedOnShutdown,
      gpuPlugin,
      mockServices.rootConfig.factory({
        data: { gpu, permission: { enabled: true } },
      }),
      demoUserInfo(),
      ...realPermissionPolicy(),
    ],
  });
  return request(backend.server);
}

describe('GET /platform/checks', () => {
  it('answers the config findings of the demo platform to the platform team, and refuses a team member', async () => {
    const http = await start(demoPlatformConfig);
    const res = await http
      .get('/api/gpu/platform/checks')
      .set('Authorization', asUser('alice'))
      .expect(200);
    expect(res.body.clusters).toEqual([]);
    expect(new Date(res.body.checkedAt).toString()).not.toBe('Invalid Date');
    expect(res.body.findings).toContainEqual({
      id: 'production-on-spot',
      severity: 'error',
      source: 'config',
      where: 'gpu.pools[1].capacityType',
      message: expect.stringContaining('Spot pool spot-l4'),
      fix: expect.stringContaining('on-demand'),
    });
    expect(
      res.body.findings.every((f: { source: string }) => f.source === 'config'),
    ).toBe(true);

    const refused = await http
      .get('/api/gpu/platform/checks')
      .set('Authorization', asUser('bob'))
      .expect(403);
    expect(refused.body.error.message).toMatch(/run the platform checks/);
  });

  it('checks a GitOps cluster through the config only, and says so', async () => {
    const http = await start({
      ...demoPlatformConfig,
      clusters: [{ name: 'gpu-gitops', mode: 'gitops' }],
    });
    const res = await http
      .get('/api/gpu/platform/checks')
      .set('Authorization', asUser('alice'))
      .expect(200);
    expect(res.body.clusters).toEqual([
      { name: 'gpu-gitops', mode: 'gitops', live: false },
    ]);
    expect(
      res.body.findings.filter(
        (f: { source: string }) => f.source !== 'config',
      ),
    ).toEqual([]);
  });

  it('turns a list the cluster cannot answer into a finding of its own, and skips the kinds whose CRD is absent', async () => {
    // The fake API server serves no autoscaling/v2 (its discovery answers 404) and no KEDA.
    const { http } = await startApplyClusterBackend(server, {
      groups: ['ml-platform'],
    });
    const res = await http.get('/api/gpu/platform/checks').expect(200);
    expect(res.body.clusters).toEqual([
      { name: 'gpu-eu', mode: 'apply', live: true },
    ]);
    const failed = res.body.findings.filter(
      (f: { id: string }) => f.id === 'cluster-read-failed',
    );
    expect(failed).toContainEqual({
      id: 'cluster-read-failed',
      severity: 'error',
      source: 'cluster',
      cluster: 'gpu-eu',
      where: 'HorizontalPodAutoscaler (list)',
      message: expect.stringMatching(
        /^Could not list autoscaling\/v2 HorizontalPodAutoscaler on cluster gpu-eu: 404 /,
      ),
      fix: expect.stringContaining('reachable'),
    });
    expect(
      failed.filter((f: { where: string }) =>
        /ScaledObject|NodePool/.test(f.where),
      ),
    ).toEqual([]);
  });
});
