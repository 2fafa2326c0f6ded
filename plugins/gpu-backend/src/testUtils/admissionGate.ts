import { AdmissionregistrationV1Api } from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { createServer, Server } from 'node:https';
import { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { LocalClusterClients } from './localCluster';

interface AdmissionReview {
  apiVersion: string;
  kind: string;
  request: {
    uid: string;
    operation: string;
    name?: string;
    namespace?: string;
    dryRun?: boolean;
  };
}

/**
 * A validating admission webhook on the local cluster that holds every Deployment create or update in one namespace
 * until the test opens it: the way to have an apply "still running" on a real API server (a slow admission chain).
 * Served on loopback with the local cluster's serving certificate (`pki/` beside its kubeconfig).
 *
 * @public
 */
export async function startAdmissionGate(options: {
  clients: LocalClusterClients;
  kubeconfig: string;
  namespace: string;
}) {
  const pki = join(dirname(options.kubeconfig), 'pki');
  const held: Array<() => void> = [];
  const seen: string[] = [];
  let open = false;
  let probed = false;
  const server: Server = createServer(
    {
      cert: readFileSync(join(pki, 'serving.crt')),
      key: readFileSync(join(pki, 'serving.key')),
    },
    (req, res) => {
      let body = '';
      req.on('data', chunk => {
        body += chunk;
      });
      req.on('end', () => {
        const review = JSON.parse(body) as AdmissionReview;
        const answer = () => {
          res.setHeader('Content-Type', 'application/json');
          res.end(
            JSON.stringify({
              apiVersion: review.apiVersion,
              kind: review.kind,
              response: { uid: review.request.uid, allowed: true },
            }),
          );
        };
        if (review.request.dryRun) {
          // The gate's own probe: the API server calls the webhook now.
          probed = true;
          answer();
          return;
        }
        seen.push(`${review.request.operation} ${review.request.name}`);
        if (open) answer();
        else held.push(answer);
      });
    },
  );
  await new Promise<void>(resolve =>
    server.listen(0, '127.0.0.1', () => resolve()),
  );
  const { port } = server.address() as AddressInfo;
  const name = `gpu-test-gate-${options.namespace}`;
  const admission = options.clients.kc.makeApiClient(
    AdmissionregistrationV1Api,
  );
  // A gate left by a run that was killed (its webhook's port is gone, so the API server would refuse every
  // Deployment of the namespace): this one replaces it.
  await admission
    .deleteValidatingWebhookConfiguration({ name })
    .catch(error => {
      if ((error as { code?: number }).code !== 404) throw error;
    });
  await admission.createValidatingWebhookConfiguration({
    body: {
      metadata: { name },
      webhooks: [
        {
          name: 'gate.gpu.backstage.io',
          admissionReviewVersions: ['v1'],
          sideEffects: 'None',
          failurePolicy: 'Fail',
          timeoutSeconds: 30,
          clientConfig: {
            url: `https://127.0.0.1:${port}/gate`,
            caBundle: readFileSync(join(pki, 'ca.crt')).toString('base64'),
          },
          namespaceSelector: {
            matchLabels: { 'kubernetes.io/metadata.name': options.namespace },
          },
          rules: [
            {
              apiGroups: ['apps'],
              apiVersions: ['v1'],
              resources: ['deployments'],
              operations: ['CREATE', 'UPDATE'],
            },
          ],
        },
      ],
    },
  });
  // The API server starts calling a new webhook once its informer has the configuration: probe until it does.
  const deadline = Date.now() + 30_000;
  while (!probed) {
    if (Date.now() > deadline) {
      throw new Error(`The API server never called the admission gate ${name}`);
    }
    await options.clients.apps
      .createNamespacedDeployment({
        namespace: options.namespace,
        dryRun: 'All',
        body: {
          metadata: { name: 'gate-probe' },
          spec: {
            selector: { matchLabels: { app: 'gate-probe' } },
            template: {
              metadata: { labels: { app: 'gate-probe' } },
              spec: { containers: [{ name: 'probe', image: 'probe' }] },
            },
          },
        },
      })
      .catch(() => undefined);
    if (!probed) await new Promise(r => setTimeout(r, 200));
  }
  return {
    /** Admission requests received so far, e.g. `CREATE chat`. */
    seen,
    /** How many requests are waiting. */
    held: () => held.length,
    /** Lets every waiting and later request through. */
    open() {
      open = true;
      held.splice(0).forEach(answer => answer());
    },
    /** Holds later requests again. */
    close() {
      open = false;
    },
    async remove() {
      this.open();
      await admission
        .deleteValidatingWebhookConfiguration({ name })
        .catch(() => undefined);
      await new Promise(resolve => server.close(resolve));
    },
  };
}

/** @public */
export type AdmissionGate = Awaited<ReturnType<typeof startAdmissionGate>>;
