/*
 * A backend killed (SIGKILL) in the middle of applying a service, on the local control plane: the next backend on the
 * same database resumes the interrupted apply within a bounded time instead of leaving the service `applying`.
 */
import {
  createNamespaces,
  describeOnLocalCluster,
  eventually,
  localClusterClients,
  smallServiceRequest,
  startAdmissionGate,
} from '@gpu-platform/backstage-plugin-gpu-backend/testUtils';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  BackendProcess,
  freePort,
  startBackendProcess,
} from './__testUtils__/startBackendProcess';

jest.setTimeout(420_000);

const TEAM = 'ml-platform';
const NAMESPACE = 'ml-platform';
const RESUME_AFTER_S = 5;

describeOnLocalCluster(
  'a backend killed in the middle of an apply',
  kubeconfig => {
    const clients = localClusterClients(kubeconfig);
    const token = randomBytes(24).toString('base64url');
    const dir = mkdtempSync(path.join(tmpdir(), 'gpu-resume-'));
    const config = {
      backend: {
        database: {
          client: 'better-sqlite3',
          connection: { directory: path.join(dir, 'db') },
        },
        auth: {
          externalAccess: [
            { type: 'static', options: { token, subject: 'resume-test' } },
          ],
        },
      },
      gpu: {
        clusters: [{ name: 'local', mode: 'apply', kubeconfig }],
        apply: { resumeAfter: { seconds: RESUME_AFTER_S } },
        statusRefresh: { frequency: { seconds: 2 } },
      },
    };
    let backend: BackendProcess | undefined;

    const api = (route: string, init: RequestInit = {}) =>
      fetch(`${backend!.baseUrl}/api/gpu${route}`, {
        ...init,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
        },
      });

    afterAll(async () => {
      await backend?.stop();
      await clients.apps
        .deleteNamespacedDeployment({ name: 'resumed', namespace: NAMESPACE })
        .catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    });

    it('resumes the apply after a restart, within the resume bound, and the service becomes ready', async () => {
      await createNamespaces(clients, [NAMESPACE]);
      const gate = await startAdmissionGate({
        clients,
        kubeconfig,
        namespace: NAMESPACE,
      });
      try {
        // The second backend takes the first one's port: the address its callers know.
        const port = await freePort();
        backend = await startBackendProcess({
          port,
          configFile: path.join(dir, 'first.json'),
          config,
        });
        const creating = api('/services', {
          method: 'POST',
          body: JSON.stringify({
            request: smallServiceRequest({
              name: 'resumed',
              team: TEAM,
              namespace: NAMESPACE,
              tier: 'dedicated',
              pool: 'l4-ondemand',
            }),
          }),
        }).catch(error => error);
        await eventually('the Deployment held in admission', async () =>
          gate.held() > 0 ? true : undefined,
        );
        const listed = await (await api('/services')).json();
        const service = listed.items.find(
          (s: { name: string }) => s.name === 'resumed',
        );
        expect(service.status).toBe('applying');

        // The backend dies with the apply half done.
        await backend.kill();
        await creating;
        gate.open();

        backend = await startBackendProcess({
          port,
          configFile: path.join(dir, 'second.json'),
          config,
        });
        const restartedAt = Date.now();
        const ready = await eventually(
          'the service ready after the restart',
          async () => {
            const res = await api(`/services/${service.id}`);
            const body = await res.json();
            if (body.status === 'failed') {
              throw new Error(`failed: ${body.statusReason}`);
            }
            return body.status === 'ready' ? body : undefined;
          },
          { timeoutMs: 90_000, intervalMs: 500 },
        );
        const seconds = (Date.now() - restartedAt) / 1000;
        // The resume bound plus a few refresh periods, not "applying forever".
        expect(seconds).toBeLessThan(RESUME_AFTER_S + 30);
        expect(ready.clusterStatus.deployment.available).toBe(true);

        const audit = await (
          await api(`/audit?subjectId=${service.id}&limit=50`)
        ).json();
        expect(
          audit.items.some(
            (e: { actor: string }) => e.actor === 'system:gpu-apply-resume',
          ),
        ).toBe(true);

        const deleted = await api(`/services/${service.id}`, {
          method: 'DELETE',
        });
        expect(['deleting', 'deleted']).toContain((await deleted.json()).status);
        await eventually(
          'the service deleted',
          async () => {
            const res = await api(`/services/${service.id}`);
            return (await res.json()).status === 'deleted' ? true : undefined;
          },
          { timeoutMs: 60_000, intervalMs: 500 },
        );
      } finally {
        await gate.remove();
      }
    });
  },
);
