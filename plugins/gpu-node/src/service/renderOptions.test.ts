import type {
  KubernetesObject,
  V1Deployment,
  V1PersistentVolumeClaim,
  V1PodDisruptionBudget,
} from '@kubernetes/client-node';
import { ServiceRequest } from '@gpu-platform/backstage-plugin-gpu-common';
import { renderServiceManifests } from '../renderServiceManifests';
import { demoPlatform, fittingPlacement } from '../__testUtils__/platforms';
import { ROLLOUT_ANNOTATION } from './rolloutStrategy';
import {
  HttpScaledObject,
  PodMonitor,
  ScaledObject,
  ServiceRenderOptions,
} from './types';

const request: ServiceRequest = {
  name: 'chat',
  team: 'ml-platform',
  model: 'llama-3.2-3b',
  runtime: 'vllm',
  maxModelLen: 4096,
  concurrency: 8,
  replicas: 1,
  environment: 'production',
};

function render(
  options: Partial<ServiceRenderOptions>,
  changes: Partial<ServiceRequest> = {},
): KubernetesObject[] {
  const platform = demoPlatform();
  const asked = { ...request, ...changes };
  const placement = fittingPlacement(
    platform,
    asked,
    s => s.tier === 'dedicated',
  );
  return renderServiceManifests(platform, asked, placement, {
    serviceId: 'svc-1',
    ...options,
  });
}

function ofKind<T extends KubernetesObject>(
  objects: KubernetesObject[],
  kind: string,
): T {
  const found = objects.filter(o => o.kind === kind);
  expect(found).toHaveLength(1);
  return found[0] as T;
}

const scaleToZero = {
  minReplicas: 0,
  maxReplicas: 3,
  targetQueueDepth: 4,
  engine: 'keda' as const,
};

describe('service render options', () => {
  it('renders the token secret, mirrored pinned image, runtime class, security contexts, labels and annotations', () => {
    const objects = render({
      huggingFaceTokenSecret: { name: 'hf-token', key: 'token' },
      images: {
        registry: 'mirror.example.com/hub',
        vllm: `vllm/vllm-openai@sha256:${'b'.repeat(64)}`,
      },
      runtimeClassName: 'nvidia',
      podSecurityContext: { seccompProfile: { type: 'RuntimeDefault' } },
      containerSecurityContext: { allowPrivilegeEscalation: false },
      modelCache: { storageClassName: 'gp3' },
      labels: {
        'example.com/cost-centre': 'ml-42',
        // the renderer's own labels win
        'app.kubernetes.io/name': 'other',
      },
      annotations: { 'example.com/owner': 'ml' },
    });
    const deployment = ofKind<V1Deployment>(objects, 'Deployment');
    const pod = deployment.spec!.template.spec!;
    const container = pod.containers[0];
    expect(container.image).toBe(
      `mirror.example.com/hub/vllm/vllm-openai@sha256:${'b'.repeat(64)}`,
    );
    expect(container.env).toContainEqual({
      name: 'HF_TOKEN',
      valueFrom: { secretKeyRef: { name: 'hf-token', key: 'token' } },
    });
    expect(container.securityContext).toEqual({
      allowPrivilegeEscalation: false,
    });
    expect(pod.runtimeClassName).toBe('nvidia');
    expect(pod.securityContext).toEqual({
      seccompProfile: { type: 'RuntimeDefault' },
    });
    for (const object of objects) {
      expect(object.metadata!.labels).toMatchObject({
        'example.com/cost-centre': 'ml-42',
        'app.kubernetes.io/name': 'vllm',
      });
      expect(object.metadata!.annotations).toEqual({
        'example.com/owner': 'ml',
      });
    }
    expect(deployment.spec!.template.metadata!.annotations).toMatchObject({
      'example.com/owner': 'ml',
      'prometheus.io/scrape': 'true',
    });
    expect(deployment.spec!.selector.matchLabels).not.toHaveProperty(
      'example.com/cost-centre',
    );
    expect(
      ofKind<V1PersistentVolumeClaim>(objects, 'PersistentVolumeClaim').spec!
        .storageClassName,
    ).toBe('gp3');
  });

  it('mounts a shared weights-cache claim instead of rendering one', () => {
    const objects = render({ modelCache: { existingClaim: 'hf-cache' } });
    expect(objects.map(o => o.kind)).not.toContain('PersistentVolumeClaim');
    const pod = ofKind<V1Deployment>(objects, 'Deployment').spec!.template
      .spec!;
    expect(pod.volumes).toContainEqual({
      name: 'model-cache',
      persistentVolumeClaim: { claimName: 'hf-cache' },
    });
  });

  it('gives a single production replica a PDB that never blocks a drain', () => {
    const pdb = ofKind<V1PodDisruptionBudget>(
      render({}),
      'PodDisruptionBudget',
    );
    expect(pdb.spec!.maxUnavailable).toBe(1);
    expect(pdb.spec).not.toHaveProperty('minAvailable');
    const wider = ofKind<V1PodDisruptionBudget>(
      render({ podDisruptionBudget: { maxUnavailable: 2 } }, { replicas: 4 }),
      'PodDisruptionBudget',
    );
    expect(wider.spec!.maxUnavailable).toBe(2);
  });

  it.each([
    ['no zero-downtime rollouts', {}, { maxSurge: 0, maxUnavailable: 1 }],
    [
      'zero-downtime rollouts with quota for the surge',
      { zeroDowntimeRollouts: true, surge: { fits: true } },
      { maxSurge: 1, maxUnavailable: 0 },
    ],
    [
      'zero-downtime rollouts without quota for the surge',
      {
        zeroDowntimeRollouts: true,
        surge: { fits: false, reason: 'only 0.5 GPU-equivalents are free' },
      },
      { maxSurge: 0, maxUnavailable: 1 },
    ],
  ])('rolls out with %s', (_, options, rollingUpdate) => {
    const deployment = ofKind<V1Deployment>(render(options), 'Deployment');
    expect(deployment.spec!.strategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate,
    });
    const note = deployment.metadata!.annotations?.[ROLLOUT_ANNOTATION];
    expect(note === undefined).toBe(
      !('surge' in options) || options.surge.fits,
    );
  });

  it('says why a zero-downtime rollout runs without a surge', () => {
    const deployment = ofKind<V1Deployment>(
      render({
        zeroDowntimeRollouts: true,
        surge: { fits: false, reason: 'only 0.5 GPU-equivalents are free' },
      }),
      'Deployment',
    );
    expect(deployment.metadata!.annotations![ROLLOUT_ANNOTATION]).toBe(
      'no surge: only 0.5 GPU-equivalents are free; pods are replaced one at a time',
    );
  });

  it('refuses scale to zero without a trigger outside the pods, saying what to configure', () => {
    expect(() =>
      render({}, { environment: 'dev', autoscaling: scaleToZero }),
    ).toThrow(
      /minReplicas 0 \(scale to zero\) needs a trigger outside the service's pods.*gpu\.serviceDefaults\.scaleToZero/,
    );
  });

  it("scales to zero behind KEDA's HTTP add-on with an HTTPScaledObject instead of a ScaledObject", () => {
    const objects = render(
      { wakeTrigger: { type: 'http-add-on', scaledownPeriodSeconds: 600 } },
      { environment: 'dev', autoscaling: scaleToZero },
    );
    expect(objects.map(o => o.kind)).not.toContain('ScaledObject');
    const scaled = ofKind<HttpScaledObject>(objects, 'HTTPScaledObject');
    expect(scaled.apiVersion).toBe('http.keda.sh/v1alpha1');
    expect(scaled.spec).toEqual({
      hosts: ['chat.ml-platform.svc.cluster.local'],
      scaleTargetRef: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: 'chat',
        service: 'chat',
        port: 8000,
      },
      replicas: { min: 0, max: 3 },
      // 8 sequences in the engine plus 4 waiting, per replica
      scalingMetric: { concurrency: { targetValue: 12 } },
      scaledownPeriod: 600,
    });
  });

  it('annotates the HTTPScaledObject with the interceptor URL users call: the configured one, else the chart default', () => {
    const annotation = (wake: { interceptorUrl?: string }) =>
      ofKind<HttpScaledObject>(
        render(
          {
            wakeTrigger: {
              type: 'http-add-on',
              scaledownPeriodSeconds: 600,
              ...wake,
            },
          },
          { environment: 'dev', autoscaling: scaleToZero },
        ),
        'HTTPScaledObject',
      ).metadata.annotations?.['gpu.backstage.io/wake-endpoint'];
    expect(annotation({})).toBe(
      'http://keda-add-ons-http-interceptor-proxy.keda.svc.cluster.local:8080',
    );
    expect(annotation({ interceptorUrl: 'http://wake.example.com' })).toBe(
      'http://wake.example.com',
    );
  });

  it('scales in after the configured stabilization window, on the ScaledObject and the HPA KEDA makes', () => {
    const scaled = ofKind<ScaledObject>(
      render(
        { scaleDownStabilizationSeconds: 30 },
        { environment: 'dev', autoscaling: { ...scaleToZero, minReplicas: 1 } },
      ),
      'ScaledObject',
    );
    expect(scaled.spec.cooldownPeriod).toBe(30);
    expect(scaled.spec.advanced).toEqual({
      horizontalPodAutoscalerConfig: {
        behavior: { scaleDown: { stabilizationWindowSeconds: 30 } },
      },
    });
    const byDefault = ofKind<ScaledObject>(
      render(
        {},
        { environment: 'dev', autoscaling: { ...scaleToZero, minReplicas: 1 } },
      ),
      'ScaledObject',
    );
    expect(byDefault.spec.cooldownPeriod).toBe(300);
    expect(byDefault.spec.advanced).toBeUndefined();
  });

  it('keeps the queue-depth ScaledObject when the service does not scale to zero', () => {
    const objects = render(
      { wakeTrigger: { type: 'http-add-on', scaledownPeriodSeconds: 300 } },
      { environment: 'dev', autoscaling: { ...scaleToZero, minReplicas: 1 } },
    );
    expect(objects.map(o => o.kind)).toContain('ScaledObject');
    expect(objects.map(o => o.kind)).not.toContain('HTTPScaledObject');
  });

  it('renders a PodMonitor for the vLLM metrics port only when asked, with the selector labels', () => {
    expect(render({}).map(o => o.kind)).not.toContain('PodMonitor');
    expect(
      render({ podMonitor: { enabled: false, labels: {} } }).map(o => o.kind),
    ).not.toContain('PodMonitor');
    const monitor = ofKind<PodMonitor>(
      render({
        podMonitor: { enabled: true, labels: { release: 'kube-prom' } },
      }),
      'PodMonitor',
    );
    expect(monitor.apiVersion).toBe('monitoring.coreos.com/v1');
    expect(monitor.metadata.labels).toMatchObject({ release: 'kube-prom' });
    expect(monitor.spec).toEqual({
      selector: {
        matchLabels: {
          'app.kubernetes.io/instance': 'chat',
          'app.kubernetes.io/name': 'vllm',
        },
      },
      podMetricsEndpoints: [
        { port: 'http', path: '/metrics', interval: '15s' },
      ],
    });
  });
});
