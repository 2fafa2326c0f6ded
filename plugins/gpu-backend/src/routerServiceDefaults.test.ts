import { summariserOnDedicatedL4 } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import type { KubernetesObject, V1Deployment } from '@kubernetes/client-node';
import request from 'supertest';
import { startDemoPolicyBackend } from './__testUtils__/startDemoPolicyBackend';

jest.setTimeout(60_000);

const DIGEST = `sha256:${'c'.repeat(64)}`;

/** `gpu.serviceDefaults` as an operator writes it: defaults, a pool override and environment overrides. */
const serviceDefaults = {
  huggingFaceTokenSecret: { name: 'hf-token', key: 'token' },
  images: {
    registry: 'mirror.example.com/hub',
    vllm: `vllm/vllm-openai@${DIGEST}`,
  },
  runtimeClassName: 'nvidia',
  labels: { 'example.com/cost-centre': 'ml-42' },
  byPool: { 'l4-ondemand': { modelCache: { storageClassName: 'gp3' } } },
  byEnvironment: {
    production: {
      labels: { 'example.com/criticality': 'high' },
      podMonitor: { labels: { release: 'kube-prometheus' } },
    },
    dev: { scaleToZero: { httpAddOn: {} } },
  },
};

async function start(defaults: object = serviceDefaults) {
  return startDemoPolicyBackend({ serviceDefaults: defaults });
}

function ofKind<T extends KubernetesObject>(
  manifests: KubernetesObject[],
  kind: string,
): T {
  const found = manifests.filter(m => m.kind === kind);
  expect(found).toHaveLength(1);
  return found[0] as T;
}

const scaleToZero = {
  minReplicas: 0,
  maxReplicas: 2,
  targetQueueDepth: 4,
  engine: 'keda',
};

describe('gpu.serviceDefaults from app-config to the rendered objects', () => {
  it('refuses to start on a bad key, naming it', async () => {
    await expect(
      start({
        byPool: { 'l4-ondemand': { images: { vllm: 'http://x/vllm' } } },
      }),
    ).rejects.toThrow(
      /gpu\.serviceDefaults\.byPool\.l4-ondemand\.images\.vllm: must be an image reference/,
    );
  });

  it('renders a previewed production service with the token secret, mirrored image, runtime class, storage class, labels, PodMonitor and a surge within quota', async () => {
    const server = await start();
    const preview = await request(server)
      .post('/api/gpu/services')
      .send({ request: summariserOnDedicatedL4, dryRun: true })
      .expect(200);
    const manifests: KubernetesObject[] = preview.body.manifests;
    const deployment = ofKind<V1Deployment>(manifests, 'Deployment');
    const pod = deployment.spec!.template.spec!;
    expect(pod.runtimeClassName).toBe('nvidia');
    expect(pod.containers[0].image).toBe(
      `mirror.example.com/hub/vllm/vllm-openai@${DIGEST}`,
    );
    expect(pod.containers[0].env).toContainEqual({
      name: 'HF_TOKEN',
      valueFrom: { secretKeyRef: { name: 'hf-token', key: 'token' } },
    });
    // The preview says what a rollout needs from quota.
    expect(preview.body.statusReason).toMatch(
      /Rollouts surge: a surge pod needs one more replica's share \(1 GPU-equivalents\) of team ml-platform's quota on pool l4-ondemand during a rollout; 3 are free/,
    );
    // Production rolls out with a surge: ml-platform's 4 L4s hold the replica and one more.
    expect(deployment.spec!.strategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { maxSurge: 1, maxUnavailable: 0 },
    });
    expect(
      ofKind<KubernetesObject & { spec: { storageClassName: string } }>(
        manifests,
        'PersistentVolumeClaim',
      ).spec.storageClassName,
    ).toBe('gp3');
    const own = manifests.filter(
      m => m.metadata?.labels?.['gpu.backstage.io/service-id'] === 'dry-run',
    );
    expect(own.map(m => m.kind).sort()).toEqual([
      'Deployment',
      'PersistentVolumeClaim',
      'PodDisruptionBudget',
      'PodMonitor',
      'Service',
    ]);
    for (const object of own) {
      // the defaults' label and the environment's, merged
      expect(object.metadata!.labels).toMatchObject({
        'example.com/cost-centre': 'ml-42',
        'example.com/criticality': 'high',
      });
    }
    expect(
      ofKind<KubernetesObject & { spec: { maxUnavailable: number } }>(
        manifests,
        'PodDisruptionBudget',
      ).spec,
    ).toMatchObject({ maxUnavailable: 1 });
    expect(ofKind(manifests, 'PodMonitor').metadata!.labels).toMatchObject({
      release: 'kube-prometheus',
    });
  });

  it('stores the manifests of a created service, falling back to no surge with a note when quota cannot hold one', async () => {
    const server = await start();
    const created = await request(server)
      .post('/api/gpu/services')
      .send({ request: { ...summariserOnDedicatedL4, replicas: 4 } })
      .expect(201);
    expect(created.body.status).toBe('approved');
    const detail = await request(server)
      .get(`/api/gpu/services/${created.body.id}`)
      .expect(200);
    const deployment = ofKind<V1Deployment>(
      detail.body.manifests,
      'Deployment',
    );
    expect(deployment.spec!.template.spec!.containers[0].image).toBe(
      `mirror.example.com/hub/vllm/vllm-openai@${DIGEST}`,
    );
    // 4 replicas take all of ml-platform's 4 L4s: a surge pod would wait for quota.
    expect(deployment.spec!.strategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { maxSurge: 0, maxUnavailable: 1 },
    });
    expect(
      deployment.metadata!.annotations!['gpu.backstage.io/rollout'],
    ).toMatch(
      /^no surge: a surge pod needs one more replica's share \(1 GPU-equivalents\) of team ml-platform's quota on pool l4-ondemand during a rollout; 0 is all that is free/,
    );
  });

  it('refuses scale to zero where nothing outside the pods can wake the service, and renders the HTTP add-on where it is configured', async () => {
    const server = await start();
    const refused = await request(server)
      .post('/api/gpu/services')
      .send({
        request: { ...summariserOnDedicatedL4, autoscaling: scaleToZero },
        dryRun: true,
      })
      .expect(400);
    expect(refused.body.error.message).toMatch(
      /minReplicas 0 \(scale to zero\) needs a trigger outside the service's pods.*gpu\.serviceDefaults\.scaleToZero \(or its byEnvironment\.production or byPool\.l4-ondemand override\)/,
    );

    const dev = await request(server)
      .post('/api/gpu/services')
      .send({
        request: {
          ...summariserOnDedicatedL4,
          environment: 'dev',
          autoscaling: scaleToZero,
        },
        dryRun: true,
      })
      .expect(200);
    const kinds = dev.body.manifests.map((m: KubernetesObject) => m.kind);
    expect(kinds).toContain('HTTPScaledObject');
    expect(kinds).not.toContain('ScaledObject');
  });
});
