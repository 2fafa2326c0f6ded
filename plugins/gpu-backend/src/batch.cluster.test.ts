import { describeOnLocalCluster } from '@gpu-platform/backstage-plugin-gpu-node/testUtils';
import { BatchJobRequest } from '@gpu-platform/backstage-plugin-gpu-node';
import { BatchV1Api } from '@kubernetes/client-node';
import {
  createNamespaces,
  eventually,
  localClusterClients,
  startLocalClusterBackend,
} from './__testUtils__/localCluster';

jest.setTimeout(90_000);

const TEAM = 'cluster-batch';
const NAMESPACE = 'cluster-batch';

/**
 * The OCR backlog of the scheduling-and-cost article, scaled down: 24 documents of one GPU each (the article's 600
 * take about 107 s on this control plane, kwok completing six pods a round, against 5 s for 24), asking for 12 pods
 * at once, with a team quota of 6 GPUs on the spot pool. The team's ClusterQueue is alone in its cohort (see
 * `startLocalClusterBackend`), so only the team's 6 GPUs are available.
 */
const ocr: BatchJobRequest = {
  name: 'ocr-backlog',
  team: TEAM,
  namespace: NAMESPACE,
  environment: 'dev',
  pool: 'spot-l4',
  image: 'registry.example.com/ocr-worker:1.4.2',
  args: ['--pages-per-document', '500'],
  completions: 24,
  parallelism: 12,
  gpusPerPod: 1,
  backoffLimit: 2,
};

type Http = Awaited<ReturnType<typeof startLocalClusterBackend>>['http'];

describeOnLocalCluster('GPU batch jobs through Kueue on spot', kubeconfig => {
  const clients = localClusterClients(kubeconfig);
  const batch = clients.kc.makeApiClient(BatchV1Api);
  let http: Http;
  let stop: () => Promise<void>;

  async function deleteJobs() {
    await batch
      .deleteCollectionNamespacedJob({
        namespace: NAMESPACE,
        propagationPolicy: 'Background',
      })
      .catch(() => undefined);
    await eventually('no Job left from an earlier run', async () =>
      (await batch.listNamespacedJob({ namespace: NAMESPACE })).items.length ===
      0
        ? true
        : undefined,
    );
  }

  beforeAll(async () => {
    await createNamespaces(clients, [NAMESPACE]);
    await deleteJobs();
    const started = await startLocalClusterBackend({
      kubeconfig,
      groups: [TEAM],
      teams: [
        {
          name: TEAM,
          namespaces: [NAMESPACE],
          gpuQuota: { 'spot-l4': 6 },
          monthlyBudget: '100000',
        },
      ],
      gpu: { reconcile: { frequency: { hours: 1 } } },
    });
    http = started.http;
    stop = () => started.backend.stop();
  });

  afterAll(async () => {
    await stop?.();
    await deleteJobs().catch(() => undefined);
  });

  it('admits the OCR Job with the parallelism the quota holds, never runs more than 6 pods at once, and completes every index', async () => {
    const submitted = await http
      .post('/api/gpu/batch-jobs')
      .send({ request: ocr })
      .expect(201);
    expect(submitted.body).toMatchObject({
      mode: 'apply',
      podsAtOnce: 6,
      namespace: NAMESPACE,
    });

    // Sample the pods while the Job runs: those not finished hold a GPU of the quota.
    let maxActive = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const pods = await clients.core.listNamespacedPod({
          namespace: NAMESPACE,
          labelSelector: 'job-name=ocr-backlog',
        });
        const active = pods.items.filter(
          p =>
            !p.metadata?.deletionTimestamp &&
            (p.status?.phase === 'Pending' || p.status?.phase === 'Running'),
        ).length;
        maxActive = Math.max(maxActive, active);
        await new Promise(resolve => setTimeout(resolve, 50));
      }
    })();

    const admitted = await eventually(
      'the Job admitted and unsuspended by Kueue',
      async () => {
        const res = await http
          .get(`/api/gpu/batch-jobs/${NAMESPACE}/ocr-backlog`)
          .expect(200);
        // Kueue records the admission on the Workload, then unsuspends the Job with the admitted parallelism.
        const workloadAdmitted =
          res.body.workload?.state === 'admitted' ||
          res.body.workload?.state === 'finished';
        return workloadAdmitted && res.body.state !== 'suspended'
          ? res.body
          : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    // Partial admission: Kueue admitted 6 of the 12 pods asked for and lowered the Job's parallelism to them.
    expect(admitted.workload).toMatchObject({
      clusterQueue: `gpu-${TEAM}`,
      podSets: [
        { name: 'main', count: 6, flavors: { 'nvidia.com/gpu': 'spot-l4' } },
      ],
    });
    expect(admitted.parallelism).toBe(6);
    expect(admitted.completions).toBe(24);

    const done = await eventually(
      'the Job succeeded',
      async () => {
        const res = await http
          .get(`/api/gpu/batch-jobs/${NAMESPACE}/ocr-backlog`)
          .expect(200);
        if (res.body.state === 'failed') {
          throw new Error(`failed: ${JSON.stringify(res.body.conditions)}`);
        }
        return res.body.state === 'succeeded' ? res.body : undefined;
      },
      { timeoutMs: 45_000, intervalMs: 250 },
    );
    sampling = false;
    await sampler;

    expect(done).toMatchObject({ succeeded: 24, failed: 0, active: 0 });
    expect(done.conditions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'Complete', status: 'True' }),
      ]),
    );
    expect(maxActive).toBeGreaterThan(0);
    expect(maxActive).toBeLessThanOrEqual(6);

    // The cluster kept what was rendered: the failure policy that does not count spot reclaims.
    const live = await batch.readNamespacedJob({
      name: 'ocr-backlog',
      namespace: NAMESPACE,
    });
    expect(live.spec?.podFailurePolicy?.rules[0]).toMatchObject({
      action: 'Ignore',
      onPodConditions: [{ type: 'DisruptionTarget' }],
    });
    expect(live.spec?.completionMode).toBe('Indexed');

    // A second submission of the same name is refused: a Job cannot be changed once submitted.
    const again = await http
      .post('/api/gpu/batch-jobs')
      .send({ request: ocr })
      .expect(409);
    expect(again.body.error.message).toMatch(/already exists/);
  });
});
