import { mockServices, startTestBackend } from '@backstage/backend-test-utils';
import { demoPlatformConfig } from '@gpu-platform/backstage-plugin-gpu-common';
import {
  AuthorizationV1Api,
  KubeConfig,
  RbacAuthorizationV1Api,
} from '@kubernetes/client-node';
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import yaml from 'yaml';
import { GITOPS_FOLLOW_TASK_ID } from './gitops/GitOpsFollower';
import { Forges } from './gitops/forges';
import { ConfigReader } from '@backstage/config';
import { gpuPlugin } from './plugin';
import {
  createNamespaces,
  eventually,
  localClusterClients,
  smallServiceRequest,
} from './__testUtils__/localCluster';
import {
  createFluxSyncedRepository,
  fluxObjects,
  giteaApi,
  localForge,
  mergePullRequest,
  removeFluxSyncedRepository,
} from './testUtils/localGitea';
import { schedulerCapture } from './__testUtils__/schedulerCapture';
import { userInGroups } from './__testUtils__/userInGroups';
import { describeOnLocalCluster } from '@gpu-platform/backstage-plugin-gpu-node/testUtils';
import { databaseClosedOnShutdown } from './testUtils/databaseClosedOnShutdown';

jest.setTimeout(600_000);

const TEAM = 'gitops-follow';
const NAMESPACE = 'gitops-follow';
const CLUSTER = 'gitops-read';
const POOL = 'l4-ondemand';
const READER_RBAC = path.resolve(
  __dirname,
  '../../../deploy/rbac/gpu-backend-gitops-reader.yaml',
);
/** Short enough for the expiry test to wait for, long enough for the others to merge before. */
const MERGE_WITHIN_S = 40;

/** Set-up that did not happen fails the suite with what the forge or backend answered. */
function must(condition: boolean, message: string): void {
  if (!condition) throw new Error(message);
}

describeOnLocalCluster(
  'GitOps reservations on a real forge and controller: Gitea pull requests, Flux, a read-only credential',
  kubeconfig => {
    const forge = localForge();
    const clients = localClusterClients(kubeconfig);
    const rbac = clients.kc.makeApiClient(RbacAuthorizationV1Api);
    const suffix = Date.now().toString(36);
    const repo = `gpu-follow-${suffix}`;
    const reader = `gpu-gitops-reader-${suffix}`;
    const host = new URL(forge.url).host;
    const integration = {
      host,
      baseUrl: forge.url,
      username: forge.user,
      password: forge.token,
    };
    const { kustomizations } = fluxObjects(forge);
    const gitea = giteaApi(forge);
    const capture = schedulerCapture('test-gitops-follow');
    let http: ReturnType<typeof request>;
    let stopBackend: () => Promise<void>;
    let readOnlyToken: string;

    /** Proposes, as the template's publish step does, the files of a directory (or its removal) in a pull request. */
    async function propose(
      branch: string,
      directory: string,
      files: Record<string, string> | 'remove',
    ): Promise<{ number: number; html_url: string }> {
      let operations;
      if (files === 'remove') {
        const listed = await gitea<Array<{ path: string; sha: string }>>(
          'GET',
          `/repos/${forge.user}/${repo}/contents/${directory}?ref=main`,
        );
        operations = listed.body.map(f => ({
          operation: 'delete',
          path: f.path,
          sha: f.sha,
        }));
      } else {
        operations = Object.entries(files).map(([name, content]) => ({
          operation: 'create',
          path: `${directory}/${name}`,
          content: Buffer.from(content).toString('base64'),
        }));
      }
      const committed = await gitea(
        'POST',
        `/repos/${forge.user}/${repo}/contents`,
        {
          branch: 'main',
          new_branch: branch,
          message: `${files === 'remove' ? 'Remove' : 'Add'} ${directory}`,
          files: operations,
        },
      );
      expect(committed.status).toBe(201);
      const opened = await gitea<{ number: number; html_url: string }>(
        'POST',
        `/repos/${forge.user}/${repo}/pulls`,
        { base: 'main', head: branch, title: `${branch}`, body: '' },
      );
      expect(opened.status).toBe(201);
      return opened.body;
    }

    const merge = (number: number) => mergePullRequest(forge, repo, number);

    /** Runs the follower round now (the test scheduler runs no task on its own) and reads the service. */
    async function followed(id: string) {
      await capture.scheduler().triggerTask(GITOPS_FOLLOW_TASK_ID);
      const res = await http.get(`/api/gpu/services/${id}`);
      expect(res.status).toBe(200);
      return res.body;
    }

    async function reserved(): Promise<number> {
      const res = await http.get(`/api/gpu/teams/${TEAM}/quota`);
      expect(res.status).toBe(200);
      return res.body.reservedGpuEquivalents[POOL] ?? 0;
    }

    /** A GitOps service recorded provisionally, as the template's create step does. */
    async function createService(name: string) {
      const res = await http.post('/api/gpu/services').send({
        request: smallServiceRequest({
          name,
          team: TEAM,
          namespace: NAMESPACE,
          tier: 'dedicated',
          pool: POOL,
        }),
        mode: 'gitops',
        provisional: true,
      });
      expect(res.status).toBe(201);
      const detail = await http.get(`/api/gpu/services/${res.body.id}`);
      return detail.body as {
        id: string;
        name: string;
        manifests: Array<Record<string, unknown>>;
      };
    }

    /** Its manifests as a kustomization directory. */
    function filesOf(service: { manifests: Array<Record<string, unknown>> }) {
      return {
        'kustomization.yaml': yaml.stringify({
          apiVersion: 'kustomize.config.k8s.io/v1beta1',
          kind: 'Kustomization',
          resources: ['manifests.yaml'],
        }),
        'manifests.yaml': service.manifests
          .map(m => yaml.stringify(m))
          .join('---\n'),
      };
    }

    async function confirm(id: string, pullRequestUrl: string) {
      const res = await http
        .post(`/api/gpu/services/${id}/confirm`)
        .send({ pullRequestUrl });
      expect(res.status).toBe(200);
      return res.body;
    }

    beforeAll(async () => {
      await createFluxSyncedRepository({
        forge,
        clients,
        name: repo,
        readme: 'One directory per GPU model service.\n',
      });
      await createNamespaces(clients, [NAMESPACE]);
      await clients.custom.createNamespacedCustomObject({
        ...kustomizations,
        body: {
          apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
          kind: 'Kustomization',
          metadata: { name: repo },
          spec: {
            interval: '2s',
            retryInterval: '2s',
            path: './deploy',
            prune: true,
            sourceRef: { kind: 'GitRepository', name: repo },
          },
        },
      });

      // The backend reads the cluster as a ServiceAccount bound to deploy/rbac/gpu-backend-gitops-reader.yaml's
      // ClusterRole: it can read, not write.
      const role = yaml
        .parseAllDocuments(fs.readFileSync(READER_RBAC, 'utf8'))
        .map(d => d.toJS())
        .find(o => o.kind === 'ClusterRole');
      await rbac.createClusterRole({
        body: { ...role, metadata: { name: reader } },
      });
      await clients.core.createNamespacedServiceAccount({
        namespace: NAMESPACE,
        body: { metadata: { name: reader } },
      });
      await rbac.createClusterRoleBinding({
        body: {
          metadata: { name: reader },
          roleRef: {
            apiGroup: 'rbac.authorization.k8s.io',
            kind: 'ClusterRole',
            name: reader,
          },
          subjects: [
            { kind: 'ServiceAccount', name: reader, namespace: NAMESPACE },
          ],
        },
      });
      readOnlyToken = (
        await clients.core.createNamespacedServiceAccountToken({
          name: reader,
          namespace: NAMESPACE,
          body: { spec: { audiences: [], expirationSeconds: 3600 } },
        })
      ).status!.token;
      const kc = new KubeConfig();
      kc.loadFromFile(kubeconfig);
      const { server, caData } = kc.getCurrentCluster()!;

      const backend = await startTestBackend({
        features: [
          databaseClosedOnShutdown,
          gpuPlugin,
          capture.module,
          userInGroups([TEAM]),
          mockServices.rootConfig.factory({
            data: {
              gpu: {
                ...demoPlatformConfig,
                kueue: { ...demoPlatformConfig.kueue, cohort: `suite-${TEAM}` },
                teams: [
                  {
                    name: TEAM,
                    namespaces: [NAMESPACE],
                    gpuQuota: { [POOL]: 4 },
                    monthlyBudget: '20000',
                  },
                ],
                clusters: [{ name: CLUSTER, mode: 'gitops' }],
                gitops: { mergeWithin: { seconds: MERGE_WITHIN_S } },
              },
              kubernetes: {
                clusterLocatorMethods: [
                  {
                    type: 'config',
                    clusters: [
                      {
                        name: CLUSTER,
                        url: server,
                        authProvider: 'serviceAccount',
                        serviceAccountToken: readOnlyToken,
                        ...(caData ? { caData } : {}),
                      },
                    ],
                  },
                ],
              },
              integrations: { gitea: [integration] },
            },
          }),
        ],
      });
      stopBackend = () => backend.stop();
      http = request(backend.server);

      // The platform's Kueue objects (flavors, the team's ClusterQueue, priorities), as the platform's own GitOps
      // directory holds them: committed to main and synced by a Kustomization that never prunes (other suites'
      // services may use the flavors).
      const platform = await http.get(
        `/api/gpu/platform/manifests?cluster=${CLUSTER}`,
      );
      must(
        platform.status === 200,
        `No platform manifests: ${platform.status}`,
      );
      const kueueFiles = (
        platform.body.files as Array<{ path: string; content: string }>
      ).filter(f => f.path.startsWith('kueue/'));
      const committed = await gitea(
        'POST',
        `/repos/${forge.user}/${repo}/contents`,
        {
          branch: 'main',
          message: 'GPU platform: Kueue',
          files: kueueFiles.map(f => ({
            operation: 'create',
            path: `platform/${f.path}`,
            content: Buffer.from(f.content).toString('base64'),
          })),
        },
      );
      must(
        committed.status === 201,
        `Gitea did not commit the platform: ${committed.status}`,
      );
      await clients.custom.createNamespacedCustomObject({
        ...kustomizations,
        body: {
          apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
          kind: 'Kustomization',
          metadata: { name: `${repo}-platform` },
          spec: {
            interval: '2s',
            retryInterval: '2s',
            path: './platform/kueue',
            prune: false,
            sourceRef: { kind: 'GitRepository', name: repo },
          },
        },
      });
    });

    afterAll(async () => {
      await removeFluxSyncedRepository({
        forge,
        clients,
        name: repo,
        kustomizations: [repo, `${repo}-platform`],
      });
      await rbac
        .deleteClusterRoleBinding({ name: reader })
        .catch(() => undefined);
      await rbac.deleteClusterRole({ name: reader }).catch(() => undefined);
      await stopBackend?.();
    });

    it('the forge client reads, and closes with a comment, pull requests of the real forge', async () => {
      const forges = Forges.fromConfig(
        new ConfigReader({ integrations: { gitea: [integration] } }),
      );
      const merged = await propose('client-merged', 'deploy/client-a', {
        'kustomization.yaml':
          'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: []\n',
      });
      const a = forges.resolve(merged.html_url);
      expect(a.ref.number).toBe(merged.number);
      expect(await a.client.state(a.ref)).toBe('open');
      await merge(merged.number);
      expect(await a.client.state(a.ref)).toBe('merged');
      // A merged request is not closed.
      expect(await a.client.close(a.ref, 'too late')).toBe('merged');

      const closed = await propose('client-closed', 'deploy/client-b', {
        'kustomization.yaml':
          'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: []\n',
      });
      const b = forges.resolve(closed.html_url);
      expect(await b.client.close(b.ref, 'Closed by the test')).toBe('closed');
      expect(await b.client.state(b.ref)).toBe('closed');
      const comments = await gitea<Array<{ body: string }>>(
        'GET',
        `/repos/${forge.user}/${repo}/issues/${closed.number}/comments`,
      );
      expect(comments.body.map(c => c.body)).toEqual(['Closed by the test']);
      const pull = await gitea<{ state: string; merged: boolean }>(
        'GET',
        `/repos/${forge.user}/${repo}/pulls/${closed.number}`,
      );
      expect(pull.body).toMatchObject({ state: 'closed', merged: false });
    });

    it('the read-only credential lists but cannot write', async () => {
      const authz = clients.kc.makeApiClient(AuthorizationV1Api);
      const may = async (verb: string) =>
        (
          await authz.createSubjectAccessReview({
            body: {
              spec: {
                user: `system:serviceaccount:${NAMESPACE}:${reader}`,
                resourceAttributes: {
                  namespace: NAMESPACE,
                  verb,
                  group: 'apps',
                  resource: 'deployments',
                },
              },
            },
          })
        ).status?.allowed;
      expect(await may('list')).toBe(true);
      expect(await may('watch')).toBe(true);
      expect(await may('create')).toBe(false);
      expect(await may('delete')).toBe(false);
    });

    it('a merged request keeps the reservation; once Flux applied it the service is Applied, admitted and Available, drift is reported not repaired; a decommission holds the quota until Flux has pruned the objects', async () => {
      const before = await reserved();
      const service = await createService(`chat-${suffix}`);
      expect(await reserved()).toBe(before + 1);
      const pull = await propose(
        `gpu-service-${service.name}`,
        `deploy/${service.name}`,
        filesOf(service),
      );
      const confirmed = await confirm(service.id, pull.html_url);
      expect(confirmed).toMatchObject({
        status: 'approved',
        reason: 'RenderedForGitOps',
        pullRequest: { url: pull.html_url, number: pull.number, state: 'open' },
      });
      expect(confirmed.confirmBy).toBeUndefined();
      // Open: the follower leaves it as it is.
      expect((await followed(service.id)).pullRequest.state).toBe('open');

      await merge(pull.number);
      await eventually(
        'the merge recorded',
        async () =>
          (await followed(service.id)).pullRequest.state === 'merged' ||
          undefined,
      );
      await eventually(
        `Deployment ${service.name} applied by Flux`,
        async () =>
          (await clients.apps
            .readNamespacedDeployment({
              name: service.name,
              namespace: NAMESPACE,
            })
            .catch(() => undefined)) ?? undefined,
        { timeoutMs: 120_000 },
      );
      expect(await reserved()).toBe(before + 1);

      // Read back with the read-only credential: Applied, then Available once Kueue admitted its pod.
      const ready = await eventually(
        `${service.name} available`,
        async () => {
          const read = await http.get(`/api/gpu/services/${service.id}`);
          if (read.body.status === 'ready') return read.body;
          // What it says meanwhile, in the failure message if it never gets there.
          throw new Error(
            `${read.body.status}/${read.body.reason}: ${
              read.body.statusReason
            } ${JSON.stringify(read.body.clusterStatus ?? null).slice(0, 600)}`,
          );
        },
        { timeoutMs: 120_000 },
      );
      const conditionOf = (body: any, type: string) =>
        body.conditions.find((c: { type: string }) => c.type === type);
      expect(conditionOf(ready, 'Applied')).toMatchObject({
        status: 'True',
        observedGeneration: 1,
      });
      expect(conditionOf(ready, 'Available')).toMatchObject({
        status: 'True',
        reason: 'Available',
      });
      expect(ready.clusterStatus.admission).toMatchObject({
        state: 'admitted',
      });

      // Drift, with Flux paused: scaled by hand, it is reported and left as it is (Git is the source of truth).
      const suspend = (suspended: boolean) =>
        clients.custom.patchNamespacedCustomObject(
          {
            ...kustomizations,
            name: repo,
            body: [{ op: 'replace', path: '/spec/suspend', value: suspended }],
          },
          // A JSON patch: the client's default for patches.
        );
      await suspend(true);
      await clients.apps.patchNamespacedDeploymentScale({
        name: service.name,
        namespace: NAMESPACE,
        body: [{ op: 'replace', path: '/spec/replicas', value: 2 }],
      });
      const drifted = await eventually(
        'the drift reported',
        async () => {
          const read = await http.get(`/api/gpu/services/${service.id}`);
          return read.body.reason === 'DriftedFromGit' ? read.body : undefined;
        },
        { timeoutMs: 60_000 },
      );
      expect(drifted.status).toBe('ready');
      expect(drifted.statusReason).toMatch(
        /asks for 2 replicas, not the 1 requested/,
      );
      await capture.scheduler().triggerTask('gpu-status-refresh');
      await new Promise(resolve => setTimeout(resolve, 2_000));
      expect(
        (
          await clients.apps.readNamespacedDeployment({
            name: service.name,
            namespace: NAMESPACE,
          })
        ).spec?.replicas,
      ).toBe(2);
      await suspend(false);
      await eventually(
        'Flux restores Git and the service is Available again',
        async () => {
          const read = await http.get(`/api/gpu/services/${service.id}`);
          return read.body.reason === 'Available' ? true : undefined;
        },
        { timeoutMs: 120_000 },
      );

      const deleting = await http.delete(`/api/gpu/services/${service.id}`);
      expect(deleting.status).toBe(200);
      expect(deleting.body).toMatchObject({
        status: 'deleting',
        reason: 'AwaitingPrune',
      });
      // The objects are still there: rounds of the follower hold the quota.
      expect((await followed(service.id)).status).toBe('deleting');
      expect(await reserved()).toBe(before + 1);

      const removal = await propose(
        `gpu-service-${service.name}-decommission`,
        `deploy/${service.name}`,
        'remove',
      );
      await merge(removal.number);
      await eventually(
        `Deployment ${service.name} pruned by Flux`,
        async () =>
          await clients.apps
            .readNamespacedDeployment({
              name: service.name,
              namespace: NAMESPACE,
            })
            .then(() => undefined)
            .catch(error => (error.code === 404 ? true : undefined)),
        { timeoutMs: 120_000 },
      );
      const deleted = await eventually(
        'the decommission completed',
        async () => {
          const read = await followed(service.id);
          return read.status === 'deleted' ? read : undefined;
        },
      );
      expect(deleted.reason).toBe('Deleted');
      expect(await reserved()).toBe(before);
    });

    it('a request closed without merging rolls its reservation back', async () => {
      const before = await reserved();
      const service = await createService(`closed-${suffix}`);
      const pull = await propose(
        `gpu-service-${service.name}`,
        `deploy/${service.name}`,
        filesOf(service),
      );
      await confirm(service.id, pull.html_url);
      expect(await reserved()).toBe(before + 1);
      const closed = await gitea(
        'PATCH',
        `/repos/${forge.user}/${repo}/pulls/${pull.number}`,
        { state: 'closed' },
      );
      expect(closed.status).toBe(201);
      const rolledBack = await eventually('the roll-back', async () => {
        const read = await followed(service.id);
        return read.status === 'deleted' ? read : undefined;
      });
      expect(rolledBack).toMatchObject({
        reason: 'PullRequestClosed',
        pullRequest: { state: 'closed' },
      });
      expect(await reserved()).toBe(before);
    });

    it('a request not merged within gpu.gitops.mergeWithin is closed on the forge and its reservation released', async () => {
      const before = await reserved();
      const service = await createService(`late-${suffix}`);
      const pull = await propose(
        `gpu-service-${service.name}`,
        `deploy/${service.name}`,
        filesOf(service),
      );
      const confirmed = await confirm(service.id, pull.html_url);
      const mergeBy = Date.parse(confirmed.pullRequest.mergeBy);
      expect((await followed(service.id)).status).toBe('approved');
      expect(await reserved()).toBe(before + 1);
      await new Promise(resolve =>
        setTimeout(resolve, Math.max(0, mergeBy - Date.now()) + 500),
      );
      const expired = await eventually('the expiry', async () => {
        const read = await followed(service.id);
        return read.status === 'deleted' ? read : undefined;
      });
      expect(expired).toMatchObject({
        reason: 'PullRequestExpired',
        pullRequest: { state: 'expired' },
      });
      expect(await reserved()).toBe(before);
      const onForge = await gitea<{ state: string; merged: boolean }>(
        'GET',
        `/repos/${forge.user}/${repo}/pulls/${pull.number}`,
      );
      expect(onForge.body).toMatchObject({ state: 'closed', merged: false });
      const comments = await gitea<Array<{ body: string }>>(
        'GET',
        `/repos/${forge.user}/${repo}/issues/${pull.number}/comments`,
      );
      expect(comments.body[0]?.body).toMatch(/^Not merged by /);
    });
    it('a closed, unmerged change request rolls the change back: the previous spec and reservation are restored, the cluster keeps running it', async () => {
      const before = await reserved();
      const service = await createService(`change-${suffix}`);
      const created = await propose(
        `gpu-service-${service.name}`,
        `deploy/${service.name}`,
        filesOf(service),
      );
      await confirm(service.id, created.html_url);
      await merge(created.number);
      await eventually(
        'the merge recorded',
        async () =>
          (await followed(service.id)).pullRequest.state === 'merged' ||
          undefined,
      );
      const replicasInCluster = async () =>
        (
          await clients.apps
            .readNamespacedDeployment({
              name: service.name,
              namespace: NAMESPACE,
            })
            .catch(() => undefined)
        )?.spec?.replicas;
      await eventually(
        `Deployment ${service.name} applied by Flux`,
        async () => (await replicasInCluster()) === 1 || undefined,
        { timeoutMs: 120_000 },
      );
      expect(await reserved()).toBe(before + 1);
      const original = (await http.get(`/api/gpu/services/${service.id}`)).body;

      // The change template's calls: a PATCH pending until its request is merged, the request, the confirm step.
      const changed = await http
        .patch(`/api/gpu/services/${service.id}`)
        .send({ replicas: 2, provisional: true });
      expect(changed.status).toBe(200);
      expect(changed.body.request.replicas).toBe(2);
      expect(await reserved()).toBe(before + 2);
      const detail = (await http.get(`/api/gpu/services/${service.id}`)).body;
      const pull = await propose(
        `gpu-service-${service.name}-change-2`,
        `deploy/${service.name}-change`,
        filesOf(detail),
      );
      await confirm(service.id, pull.html_url);
      // Another change waits for this one.
      const second = await http
        .patch(`/api/gpu/services/${service.id}`)
        .send({ replicas: 3 });
      expect(second.status).toBe(409);
      // The local forge is on loopback, an address the backend withholds from every message.
      expect(second.body.error.message).toContain(
        'has a change (generation 2) waiting for its pull request (address withheld) to be merged',
      );
      // Pending: the cluster runs what Git's main branch holds (1 replica) and is compared with it, not with the change.
      const pending = await eventually(
        'the change reported pending',
        async () => {
          const read = (await http.get(`/api/gpu/services/${service.id}`)).body;
          return read.reason === 'ChangePending' ? read : undefined;
        },
        { timeoutMs: 120_000 },
      );
      expect(pending).toMatchObject({
        status: 'ready',
        generation: 2,
        pendingChange: {
          generation: 2,
          pullRequest: { url: pull.html_url, number: pull.number },
          previous: { replicas: 1 },
          proposed: { replicas: 2 },
        },
      });
      expect(pending.observedGeneration).not.toBe(2);

      const closed = await gitea(
        'PATCH',
        `/repos/${forge.user}/${repo}/pulls/${pull.number}`,
        { state: 'closed' },
      );
      expect(closed.status).toBe(201);
      const rolledBack = await eventually('the roll-back', async () => {
        await capture.scheduler().triggerTask(GITOPS_FOLLOW_TASK_ID);
        // Listed, not read: a read refreshes the status from the cluster, which then says Available again.
        const listed = await http.get(
          `/api/gpu/services?team=${TEAM}&search=${service.name}`,
        );
        const read = listed.body.items.find(
          (s: { id: string }) => s.id === service.id,
        );
        return read?.reason === 'ChangePullRequestClosed' ? read : undefined;
      });
      expect(rolledBack).toMatchObject({
        status: 'approved',
        request: { replicas: 1 },
        placement: original.placement,
        gpuEquivalents: original.gpuEquivalents,
        monthlyCost: original.monthlyCost,
      });
      const restored = (await http.get(`/api/gpu/services/${service.id}`)).body;
      expect(restored.manifests).toEqual(original.manifests);
      expect(await reserved()).toBe(before + 1);
      // Nothing of the change reached the cluster.
      expect(await replicasInCluster()).toBe(1);
    });
  },
);
