import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  FIELD_MANAGER,
  OWNERSHIP_LABELS,
} from '@gpu-platform/backstage-plugin-gpu-node';
import { demoPlatformConfig } from '@gpu-platform/backstage-plugin-gpu-common';
import { describeOnLocalCluster } from '@gpu-platform/backstage-plugin-gpu-node/testUtils';
import {
  BatchV1Api,
  KubernetesObject,
  KubernetesObjectApi,
} from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import {
  createNamespaces,
  eventually,
  localClusterClients,
  smallServiceRequest,
  reconcileNow,
  startLocalClusterBackend,
} from './__testUtils__/localCluster';
import { schedulerCapture } from './__testUtils__/schedulerCapture';

jest.setTimeout(180_000);

const TEAM = 'cluster-rbac';
const NAMESPACE = 'cluster-rbac';
/** The file's objects get this name (and the ServiceAccount this suite's namespace), so the suite has its own. */
const NAME = 'gpu-backend-rbac-test';
const UNBOUND = 'gpu-backend-unbound';
const RBAC_FILE = resolve(__dirname, '../../../deploy/rbac/gpu-backend.yaml');
/** Where the cluster-wide alert rules go (`gpu.alerts` default). */
const ALERT_NAMESPACE = 'monitoring';
const PLATFORM_OBJECTS = `${OWNERSHIP_LABELS.managedBy}=${FIELD_MANAGER},${OWNERSHIP_LABELS.scope}=platform`;
/**
 * A node of the demo platform's l4-ondemand pool, which this suite's platform leaves to no Karpenter (so the
 * reconciler labels its existing nodes), and the config label the reconciler keeps on it.
 */
const UNMANAGED_POOL = 'l4-ondemand';
const NODE = `kwok-${UNMANAGED_POOL}-0`;
const CONFIG_LABEL = 'nvidia.com/device-plugin.config';

type Http = Awaited<ReturnType<typeof startLocalClusterBackend>>['http'];

/** deploy/rbac/gpu-backend.yaml as a user applies it, renamed to this suite's names. */
function rbacObjects(): KubernetesObject[] {
  const subject = { kind: 'ServiceAccount', name: NAME, namespace: NAMESPACE };
  return parseAllDocuments(readFileSync(RBAC_FILE, 'utf8')).map(doc => {
    const object = doc.toJSON();
    object.metadata.name = NAME;
    if (object.kind === 'ServiceAccount') object.metadata.namespace = NAMESPACE;
    if (object.roleRef) object.roleRef.name = NAME;
    if (object.subjects) object.subjects = [subject];
    return object;
  });
}

describeOnLocalCluster(
  'the backend on a ServiceAccount token with deploy/rbac/gpu-backend.yaml',
  kubeconfig => {
    const clients = localClusterClients(kubeconfig);
    const objects = KubernetesObjectApi.makeApiClient(clients.kc);
    const rbac = rbacObjects();

    async function tokenOf(name: string): Promise<string> {
      const { status } = await clients.core.createNamespacedServiceAccountToken(
        {
          name,
          namespace: NAMESPACE,
          body: { spec: { audiences: [], expirationSeconds: 3600 } },
        },
      );
      return status!.token;
    }

    /**
     * Takes away what the reconciler delivers of every part, so that its first pass writes each kind with the token:
     * the GPU Operator ConfigMaps, NodePools and alert rules (created again), this suite's ClusterQueue, LocalQueue
     * and Cohort (the shared ResourceFlavors and priority classes are patched by every service's apply), and a node's
     * config label (patched back).
     */
    /** The node's config label before the suite took it away, put back at the end should the reconciler not have. */
    let nodeConfig: string | undefined;

    async function undeliverPlatform(gpuOperator: string) {
      await clients.core.deleteCollectionNamespacedConfigMap({
        namespace: gpuOperator,
        labelSelector: PLATFORM_OBJECTS,
      });
      await clients.custom.deleteCollectionClusterCustomObject({
        group: 'karpenter.sh',
        version: 'v1',
        plural: 'nodepools',
        labelSelector: PLATFORM_OBJECTS,
      });
      await clients.custom.deleteCollectionNamespacedCustomObject({
        group: 'monitoring.coreos.com',
        version: 'v1',
        namespace: ALERT_NAMESPACE,
        plural: 'prometheusrules',
        labelSelector: PLATFORM_OBJECTS,
      });
      const queues = [
        { plural: 'localqueues', namespace: NAMESPACE, name: `gpu-${TEAM}` },
        { plural: 'clusterqueues', name: `gpu-${TEAM}` },
        // The suite's own cohort (startLocalClusterBackend's `suite-<team>`): absent on a fresh cluster anyway.
        { plural: 'cohorts', name: `suite-${TEAM}` },
      ];
      for (const { plural, namespace, name } of queues) {
        const ref = {
          group: 'kueue.x-k8s.io',
          version: 'v1beta2',
          plural,
          name,
        };
        const remove = namespace
          ? clients.custom.deleteNamespacedCustomObject({ ...ref, namespace })
          : clients.custom.deleteClusterCustomObject(ref);
        await remove.catch(error => {
          if ((error as { code?: number }).code !== 404) throw error;
        });
        await eventually(`${plural} ${name} gone`, async () => {
          try {
            await (namespace
              ? clients.custom.getNamespacedCustomObject({ ...ref, namespace })
              : clients.custom.getClusterCustomObject(ref));
            return undefined;
          } catch (error) {
            return (error as { code?: number }).code === 404 ? true : undefined;
          }
        });
      }
      const node = await clients.core.readNode({ name: NODE });
      nodeConfig = node.metadata?.labels?.[CONFIG_LABEL];
      if (nodeConfig !== undefined) {
        await clients.core.patchNode({
          name: NODE,
          body: [
            {
              op: 'remove',
              path: `/metadata/labels/${CONFIG_LABEL.replace('/', '~1')}`,
            },
          ],
        });
      }
    }

    async function deleteAll(items: KubernetesObject[]) {
      for (const object of items) {
        await objects.delete(object).catch(error => {
          if ((error as { code?: number }).code !== 404) throw error;
        });
      }
    }

    const unbound: KubernetesObject = {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: UNBOUND, namespace: NAMESPACE },
    };

    beforeAll(async () => {
      const gpuOperator = rbac.find(o => o.kind === 'Role')!.metadata!
        .namespace!;
      await createNamespaces(clients, [
        NAMESPACE,
        gpuOperator,
        ALERT_NAMESPACE,
      ]);
      // What an earlier run may have left.
      await deleteAll([...rbac, unbound]);
      for (const object of [...rbac, unbound]) await objects.create(object);
      await undeliverPlatform(gpuOperator);
    });

    afterAll(async () => {
      await clients.apps
        .deleteCollectionNamespacedDeployment({ namespace: NAMESPACE })
        .catch(() => undefined);
      // The backend never deletes a Job.
      await clients.kc
        .makeApiClient(BatchV1Api)
        .deleteCollectionNamespacedJob({
          namespace: NAMESPACE,
          propagationPolicy: 'Background',
        })
        .catch(() => undefined);
      await deleteAll([...rbac, unbound]);
      const node = await clients.core.readNode({ name: NODE });
      if (nodeConfig && node.metadata?.labels?.[CONFIG_LABEL] === undefined) {
        await clients.core.patchNode({
          name: NODE,
          body: [
            {
              op: 'add',
              path: `/metadata/labels/${CONFIG_LABEL.replace('/', '~1')}`,
              value: nodeConfig,
            },
          ],
        });
      }
    });

    const team = {
      name: TEAM,
      namespaces: [NAMESPACE],
      gpuQuota: { 'l4-ondemand': 1, 'a100-mig': 1, 'spot-l4': 1 },
      monthlyBudget: '100000',
    };
    const settings = {
      statusRefresh: { frequency: { seconds: 1 } },
      reconcile: { frequency: { hours: 1 } },
      serviceDefaults: { podMonitor: true, scaleToZero: { httpAddOn: {} } },
      pools: demoPlatformConfig.pools.map(pool =>
        pool.name === UNMANAGED_POOL
          ? { ...pool, karpenter: { managed: false } }
          : pool,
      ),
    };

    /** The backend on a token of the ServiceAccount `name`, started before the enclosing block's tests, stopped after. */
    function backendOn(name: string) {
      const backend = {
        capture: schedulerCapture(),
        http: undefined as unknown as Http,
      };
      let stop: (() => Promise<void>) | undefined;
      beforeAll(async () => {
        const started = await startLocalClusterBackend({
          kubeconfig,
          serviceAccountToken: await tokenOf(name),
          groups: [TEAM, 'platform-team'],
          teams: [team],
          gpu: settings,
          features: [backend.capture.module],
          // The suite triggers the platform loop itself and looks at its first run.
          platformLoopAtStart: false,
        });
        backend.http = started.http;
        stop = () => started.backend.stop();
      });
      afterAll(async () => {
        await stop?.();
      });
      return backend;
    }

    describe('bound to the file’s roles', () => {
      const backend = backendOn(NAME);

      async function readyService(id: string) {
        return eventually(`service ${id} ready`, async () => {
          const res = await backend.http
            .get(`/api/gpu/services/${id}`)
            .expect(200);
          if (res.body.status === 'ready') return res.body;
          throw new Error(`${res.body.status}: ${res.body.statusReason}`);
        });
      }

      it('reconciles, creates services of two tiers and every kind and a batch job, reads their status and deletes the services', async () => {
        const first = await reconcileNow(
          backend.http,
          backend.capture.scheduler(),
        );
        expect(first.message).toBeUndefined();
        expect(first).toMatchObject({
          parts: ['gpuOperator', 'kueue', 'nodePools', 'alerts', 'nodeLabels'],
          checked: true,
          applied: true,
          inSync: false,
        });
        expect(first.undelivered).toBeUndefined();
        const repaired = (first.drifted as Array<{ kind: string }>).map(
          d => d.kind,
        );
        // Every kind taken away is written back with the token; on a cluster no other suite has used yet, the shared
        // ResourceFlavors and WorkloadPriorityClasses are missing too and are written as well.
        expect([...new Set(repaired)].sort()).toEqual(
          expect.arrayContaining([
            'ClusterQueue',
            'Cohort',
            'ConfigMap',
            'LocalQueue',
            'Node',
            'NodePool',
            'PrometheusRule',
          ]),
        );
        const node = await clients.core.readNode({ name: NODE });
        expect(node.metadata?.labels?.[CONFIG_LABEL]).toBeDefined();

        // Between them every kind a service renders: claim, Service, Deployment, HTTPScaledObject and PodMonitor;
        // PodDisruptionBudget and HPA (production); ScaledObject.
        const scale = { maxReplicas: 1, targetQueueDepth: 4 };
        const place = { team: TEAM, namespace: NAMESPACE };
        const requests = [
          smallServiceRequest({
            ...place,
            name: 'rbac-dedicated',
            tier: 'dedicated',
            pool: 'l4-ondemand',
            autoscaling: { ...scale, minReplicas: 0, engine: 'keda' },
          }),
          smallServiceRequest({
            ...place,
            name: 'rbac-mig',
            tier: 'mig',
            pool: 'a100-mig',
            environment: 'production',
            autoscaling: { ...scale, minReplicas: 1, engine: 'hpa' },
          }),
          smallServiceRequest({
            ...place,
            name: 'rbac-mig-keda',
            tier: 'mig',
            pool: 'a100-mig',
            autoscaling: { ...scale, minReplicas: 1, engine: 'keda' },
          }),
        ];
        const ids: string[] = [];
        for (const request of requests) {
          const res = await backend.http
            .post('/api/gpu/services')
            .send({ request })
            .expect(201);
          ids.push(res.body.id);
        }
        // Ready needs the status reader's every read: Deployment, ReplicaSets, pods, claims, events, Workloads.
        const ready = await Promise.all(ids.map(readyService));
        // KEDA runs beside the test cluster: with nothing waiting it may already be scaling the service whose
        // minimum is 0 to zero, leaving no Workload to read and its pod gone or going (a run of the test command read
        // the Workload already deleted and the pod still listed). The other two cover those reads.
        const scalingToZero = (service: (typeof ready)[number], i: number) =>
          requests[i].autoscaling?.minReplicas === 0 &&
          service.clusterStatus.admission.state === 'none';
        expect(
          ready.map(service => ({
            admission: service.clusterStatus.admission.state,
            pods: service.clusterStatus.pods.length,
          })),
        ).toEqual(
          ready.map((service, i) =>
            scalingToZero(service, i)
              ? {
                  admission: 'none',
                  pods: Math.min(service.clusterStatus.pods.length, 1),
                }
              : { admission: 'admitted', pods: 1 },
          ),
        );
        const kinds = ready.flatMap(service =>
          (service.manifests as Array<{ kind: string }>).map(m => m.kind),
        );
        expect([...new Set(kinds)].sort()).toEqual([
          'Deployment',
          'HTTPScaledObject',
          'HorizontalPodAutoscaler',
          'LocalQueue',
          'PersistentVolumeClaim',
          'PodDisruptionBudget',
          'PodMonitor',
          'ScaledObject',
          'Service',
        ]);

        // A batch job: the Job applied and read back with its Kueue Workload.
        const job = {
          name: 'rbac-batch',
          team: TEAM,
          namespace: NAMESPACE,
          environment: 'dev',
          pool: 'spot-l4',
          image: 'registry.example.com/ocr-worker:1.4.2',
          completions: 1,
          parallelism: 1,
          gpusPerPod: 1,
          backoffLimit: 0,
        };
        const submitted = await backend.http
          .post('/api/gpu/batch-jobs')
          .send({ request: job });
        expect([submitted.status, submitted.body.error?.message]).toEqual([
          201,
          undefined,
        ]);
        await eventually('the batch job admitted by Kueue', async () => {
          const res = await backend.http
            .get(`/api/gpu/batch-jobs/${NAMESPACE}/${job.name}`)
            .expect(200);
          return ['admitted', 'finished'].includes(res.body.workload?.state)
            ? true
            : undefined;
        });

        // The platform checks list Nodes, Deployments, HPAs, ScaledObjects and NodePools cluster-wide.
        const checks = await backend.http
          .get('/api/gpu/platform/checks')
          .expect(200);
        expect(checks.body.clusters).toEqual([
          { name: 'local', mode: 'apply', live: true },
        ]);
        expect(
          checks.body.findings.filter(
            (f: { id: string }) => f.id === 'cluster-read-failed',
          ),
        ).toEqual([]);

        const again = await reconcileNow(
          backend.http,
          backend.capture.scheduler(),
        );
        expect(again).toMatchObject({
          checked: true,
          applied: true,
          inSync: true,
        });

        for (const id of ids) {
          const res = await backend.http
            .delete(`/api/gpu/services/${id}`)
            .expect(200);
          expect(res.body.status).toBe('deleting');
        }
        // The reconciler deletes each service's objects with the file's roles; a refused delete would leave it
        // failed with reason TeardownFailed.
        for (const id of ids) {
          const done = await eventually(`service ${id} torn down`, async () => {
            const res = await backend.http
              .get(`/api/gpu/services/${id}`)
              .expect(200);
            return res.body.status === 'deleting' ? undefined : res.body;
          });
          expect(`${done.status}: ${done.statusReason}`).toMatch(/^deleted: /);
        }
        const left = await clients.apps.listNamespacedDeployment({
          namespace: NAMESPACE,
        });
        expect(left.items.filter(d => !d.metadata?.deletionTimestamp)).toEqual(
          [],
        );
      });
    });

    describe('without a binding', () => {
      const backend = backendOn(UNBOUND);

      const forbidden = new RegExp(
        `403 .*is forbidden: User "system:serviceaccount:${NAMESPACE}:${UNBOUND}" cannot (get|list|patch) resource`,
      );

      it('a service ends failed with the API server’s Forbidden reason', async () => {
        const res = await backend.http
          .post('/api/gpu/services')
          .send({
            request: smallServiceRequest({
              name: 'rbac-refused',
              team: TEAM,
              namespace: NAMESPACE,
              tier: 'dedicated',
              pool: 'l4-ondemand',
            }),
          })
          .expect(201);
        const failed = await eventually('the service failed', async () => {
          const read = await backend.http
            .get(`/api/gpu/services/${res.body.id}`)
            .expect(200);
          return read.body.status === 'failed' ? read.body : undefined;
        });
        expect(failed.statusReason).toMatch(forbidden);
      });

      it('the platform checks say what they could not read', async () => {
        const checks = await backend.http
          .get('/api/gpu/platform/checks')
          .expect(200);
        const failed = checks.body.findings.filter(
          (f: { id: string }) => f.id === 'cluster-read-failed',
        );
        expect(failed.length).toBeGreaterThan(0);
        for (const finding of failed)
          expect(finding.message).toMatch(forbidden);
      });

      it('the reconciler reports the refusal', async () => {
        const report = await reconcileNow(
          backend.http,
          backend.capture.scheduler(),
        );
        expect(report).toMatchObject({ checked: false, applied: false });
        expect(report.message).toMatch(/^Comparing failed: /);
        expect(report.message).toMatch(forbidden);
      });
    });
  },
);
