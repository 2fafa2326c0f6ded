import type {
  KubernetesObject,
  V1Deployment,
  V1PersistentVolumeClaim,
  V1PodDisruptionBudget,
  V1Service,
  V2HorizontalPodAutoscaler,
} from '@kubernetes/client-node';
import { ServiceRequest } from '@gpu-platform/backstage-plugin-gpu-common';
import { renderServiceManifests } from './renderServiceManifests';
import { ScaledObject } from './service/types';
import {
  demoPlatform,
  fittingPlacement,
  servingAndOcrBatchPlatform,
  summariserRequest,
} from './__testUtils__/platforms';

const options = { serviceId: 'svc-0001' };

/** Small enough for a 1/4 share of a T4. */
const small = {
  model: 'llama-3.2-3b',
  dtype: 'int4',
  maxModelLen: 1024,
  concurrency: 2,
} as const;

function ofKind<T extends KubernetesObject>(
  objects: KubernetesObject[],
  kind: string,
): T {
  const found = objects.filter(o => o.kind === kind);
  expect(found).toHaveLength(1);
  return found[0] as T;
}

function argValue(args: string[], flag: string): string | undefined {
  const index = args.indexOf(flag);
  return index >= 0 ? args[index + 1] : undefined;
}

const demoRequest: ServiceRequest = {
  name: 'chat',
  team: 'ml-platform',
  model: 'llama-3.2-3b',
  runtime: 'vllm',
  maxModelLen: 4096,
  concurrency: 8,
  replicas: 1,
  environment: 'dev',
};

function render(
  request: ServiceRequest,
  tier: string,
  extra: Partial<typeof options> & Record<string, unknown> = {},
) {
  const platform = demoPlatform();
  const placement = fittingPlacement(platform, request, s => s.tier === tier);
  return {
    placement,
    objects: renderServiceManifests(platform, request, placement, {
      ...options,
      ...extra,
    }),
  };
}

describe('renderServiceManifests', () => {
  it('renders the report summariser as a vLLM Deployment on one dedicated L4', () => {
    const platform = servingAndOcrBatchPlatform();
    const placement = {
      tier: 'dedicated' as const,
      pool: 'l4-ondemand',
      gpusPerReplica: 1,
    };
    const objects = renderServiceManifests(
      platform,
      summariserRequest,
      placement,
      options,
    );
    expect(objects.map(o => o.kind)).toEqual([
      'PersistentVolumeClaim',
      'Service',
      'Deployment',
      'PodDisruptionBudget',
    ]);
    const deployment = ofKind<V1Deployment>(objects, 'Deployment');
    const pod = deployment.spec!.template.spec!;
    const container = pod.containers[0];
    expect(container.image).toBe('vllm/vllm-openai:v0.18.0');
    expect(container.args).toEqual([
      '--model',
      'meta-llama/Llama-3.1-8B-Instruct',
      '--served-model-name',
      'summariser',
      'llama-3.1-8b',
      '--port',
      '8000',
      '--max-model-len',
      '8192',
      '--max-num-seqs',
      '64',
      '--dtype',
      'bfloat16',
      '--gpu-memory-utilization',
      '0.9',
    ]);
    // the report summariser: limits nvidia.com/gpu 1 and memory 24Gi, requests cpu 4 and memory 16Gi
    expect(container.resources).toEqual({
      requests: { cpu: '4', memory: '16Gi', 'nvidia.com/gpu': '1' },
      limits: { memory: '24Gi', 'nvidia.com/gpu': '1' },
    });
    expect(container.ports).toEqual([
      { name: 'http', containerPort: 8000, protocol: 'TCP' },
    ]);
    expect(container.readinessProbe?.httpGet).toEqual({
      path: '/health',
      port: 'http',
    });
    expect(container.volumeMounts).toEqual([
      { name: 'dshm', mountPath: '/dev/shm' },
      { name: 'model-cache', mountPath: '/root/.cache/huggingface' },
    ]);
    expect(pod.volumes).toEqual([
      { name: 'dshm', emptyDir: { medium: 'Memory', sizeLimit: '2Gi' } },
      {
        name: 'model-cache',
        persistentVolumeClaim: { claimName: 'summariser-model-cache' },
      },
    ]);
    expect(pod.nodeSelector).toEqual({
      'gpu.example.com/pool': 'l4-ondemand',
      'karpenter.sh/capacity-type': 'on-demand',
    });
    expect(pod.tolerations).toEqual([
      {
        key: 'nvidia.com/gpu',
        operator: 'Equal',
        value: 'present',
        effect: 'NoSchedule',
      },
    ]);
    expect(deployment.spec!.replicas).toBe(1);
    expect(deployment.metadata!.namespace).toBe('serving');
    expect(deployment.metadata!.labels).toEqual({
      'app.kubernetes.io/component': 'model-server',
      'app.kubernetes.io/instance': 'summariser',
      'app.kubernetes.io/managed-by': 'backstage-gpu',
      'app.kubernetes.io/name': 'vllm',
      'app.kubernetes.io/part-of': 'gpu-model-services',
      'backstage.io/kubernetes-id': 'summariser',
      'gpu.backstage.io/pool': 'l4-ondemand',
      'gpu.backstage.io/scope': 'service',
      'gpu.backstage.io/service-id': 'svc-0001',
      'gpu.backstage.io/team': 'serving',
      'gpu.backstage.io/tier': 'dedicated',
      'kueue.x-k8s.io/priority-class': 'gpu-production',
      'kueue.x-k8s.io/queue-name': 'gpu-serving',
    });
    expect(deployment.spec!.template.metadata!.labels).toEqual(
      deployment.metadata!.labels,
    );
    expect(deployment.spec!.selector).toEqual({
      matchLabels: {
        'app.kubernetes.io/instance': 'summariser',
        'app.kubernetes.io/name': 'vllm',
      },
    });

    const claim = ofKind<V1PersistentVolumeClaim>(
      objects,
      'PersistentVolumeClaim',
    );
    // 8.03e9 parameters x 2 bytes x 1.5 = 24.09 GB = 22.4 GiB -> 23Gi
    expect(claim.spec).toEqual({
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: '23Gi' } },
    });
    const service = ofKind<V1Service>(objects, 'Service');
    expect(service.spec).toEqual({
      type: 'ClusterIP',
      selector: {
        'app.kubernetes.io/instance': 'summariser',
        'app.kubernetes.io/name': 'vllm',
      },
      ports: [
        { name: 'http', port: 8000, targetPort: 'http', protocol: 'TCP' },
      ],
    });
    const pdb = ofKind<V1PodDisruptionBudget>(objects, 'PodDisruptionBudget');
    expect(pdb.spec).toEqual({
      selector: {
        matchLabels: {
          'app.kubernetes.io/instance': 'summariser',
          'app.kubernetes.io/name': 'vllm',
        },
      },
      // One replica: maxUnavailable, never minAvailable, so a node drain evicts it instead of blocking.
      maxUnavailable: 1,
      unhealthyPodEvictionPolicy: 'AlwaysAllow',
    });
  });

  it('requests a MIG profile on a MIG pool', () => {
    const { placement, objects } = render(demoRequest, 'mig');
    const container = ofKind<V1Deployment>(objects, 'Deployment').spec!.template
      .spec!.containers[0];
    const resource = `nvidia.com/mig-${placement.migProfile}`;
    expect(container.resources!.limits![resource]).toBe('1');
    expect(container.resources!.requests![resource]).toBe('1');
    expect(Object.keys(container.resources!.limits!)).toEqual([
      'memory',
      resource,
    ]);
    expect(argValue(container.args!, '--gpu-memory-utilization')).toBe('0.9');
    expect(container.resources!.requests!.cpu).toBe('2');
  });

  it('requests a renamed shared GPU on an MPS pool and claims 1/R of its memory', () => {
    const { objects } = render({ ...demoRequest, ...small }, 'mps');
    const container = ofKind<V1Deployment>(objects, 'Deployment').spec!.template
      .spec!.containers[0];
    expect(container.resources!.limits!['nvidia.com/gpu.shared']).toBe('1');
    expect(argValue(container.args!, '--gpu-memory-utilization')).toBe('0.22');
  });

  it('requests nvidia.com/gpu on a time-slicing pool without renaming', () => {
    const { objects } = render({ ...demoRequest, ...small }, 'time-sliced');
    const deployment = ofKind<V1Deployment>(objects, 'Deployment');
    const container = deployment.spec!.template.spec!.containers[0];
    expect(container.resources!.limits!['nvidia.com/gpu']).toBe('1');
    expect(argValue(container.args!, '--gpu-memory-utilization')).toBe('0.22');
    expect(
      deployment.spec!.template.spec!.nodeSelector!['gpu.example.com/pool'],
    ).toBe('t4-timeslice');
  });

  it('spans GPUs with tensor parallelism and quantises fp8 and int4', () => {
    const platform = demoPlatform();
    const request: ServiceRequest = {
      ...demoRequest,
      name: 'big',
      model: 'llama-3.1-70b',
      dtype: 'fp8',
      maxModelLen: 8192,
      environment: 'production',
    };
    const placement = {
      tier: 'dedicated' as const,
      pool: 'h100',
      gpusPerReplica: 2,
    };
    const container = ofKind<V1Deployment>(
      renderServiceManifests(platform, request, placement, options),
      'Deployment',
    ).spec!.template.spec!.containers[0];
    expect(argValue(container.args!, '--tensor-parallel-size')).toBe('2');
    expect(argValue(container.args!, '--quantization')).toBe('fp8');
    expect(argValue(container.args!, '--dtype')).toBe('auto');
    expect(container.resources!.limits!['nvidia.com/gpu']).toBe('2');
    expect(container.resources!.requests!.cpu).toBe('8');

    const int4 = ofKind<V1Deployment>(
      renderServiceManifests(
        platform,
        { ...request, dtype: 'int4' },
        placement,
        options,
      ),
      'Deployment',
    ).spec!.template.spec!.containers[0];
    expect(argValue(int4.args!, '--quantization')).toBe('awq');
  });

  it('renders Ollama with its environment, a model pull and a probe on /', () => {
    const request: ServiceRequest = {
      ...demoRequest,
      runtime: 'ollama',
      name: 'local-chat',
    };
    const { objects } = render(request, 'dedicated', {
      images: { ollama: 'registry.example.com/ollama:1' },
    });
    const pod = ofKind<V1Deployment>(objects, 'Deployment').spec!.template
      .spec!;
    const container = pod.containers[0];
    expect(container.image).toBe('registry.example.com/ollama:1');
    expect(container.env).toEqual([
      { name: 'OLLAMA_CONTEXT_LENGTH', value: '4096' },
      { name: 'OLLAMA_KEEP_ALIVE', value: '-1' },
      { name: 'OLLAMA_MAX_LOADED_MODELS', value: '1' },
      { name: 'OLLAMA_NUM_PARALLEL', value: '8' },
    ]);
    expect(container.ports).toEqual([
      { name: 'http', containerPort: 11434, protocol: 'TCP' },
    ]);
    expect(container.readinessProbe!.httpGet).toEqual({
      path: '/',
      port: 'http',
    });
    expect(container.volumeMounts).toEqual([
      { name: 'model-cache', mountPath: '/root/.ollama' },
    ]);
    expect(pod.initContainers![0].env).toEqual([
      // No dtype: the model's default bf16 has no Ollama tag, so its most precise one, fp16.
      { name: 'OLLAMA_MODEL', value: 'llama3.2:3b-instruct-fp16' },
    ]);
    expect(pod.volumes!.map(v => v.name)).toEqual(['model-cache']);
    expect(ofKind<V1Service>(objects, 'Service').spec!.ports![0].port).toBe(
      11434,
    );
  });

  it('renders a KEDA ScaledObject on the queue depth that scales to zero with a wake query outside the pods', () => {
    const request: ServiceRequest = {
      ...demoRequest,
      replicas: 1,
      autoscaling: {
        minReplicas: 0,
        maxReplicas: 4,
        targetQueueDepth: 5,
        engine: 'keda',
      },
    };
    const { objects } = render(request, 'dedicated', {
      prometheusServerAddress: 'http://prom:9090',
      wakeTrigger: {
        type: 'prometheus',
        query:
          'sum(gateway_pending{namespace="{{namespace}}",service="{{service}}"})',
      },
    });
    const scaled = ofKind<ScaledObject>(objects, 'ScaledObject');
    expect(scaled.apiVersion).toBe('keda.sh/v1alpha1');
    expect(scaled.spec).toEqual({
      scaleTargetRef: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: 'chat',
      },
      minReplicaCount: 0,
      maxReplicaCount: 4,
      pollingInterval: 15,
      cooldownPeriod: 300,
      triggers: [
        {
          type: 'prometheus',
          metadata: {
            serverAddress: 'http://prom:9090',
            query:
              'sum(vllm:num_requests_waiting{namespace="ml-platform",model_name="chat"})',
            threshold: '5',
            activationThreshold: '0',
          },
        },
        {
          type: 'prometheus',
          metadata: {
            serverAddress: 'http://prom:9090',
            query:
              'sum(gateway_pending{namespace="ml-platform",service="chat"})',
            threshold: '5',
            activationThreshold: '0',
          },
        },
      ],
    });
    const deployment = ofKind<V1Deployment>(objects, 'Deployment');
    expect(deployment.spec).not.toHaveProperty('replicas');
    // several replicas may run: they share the cache
    expect(
      ofKind<V1PersistentVolumeClaim>(objects, 'PersistentVolumeClaim').spec!
        .accessModes,
    ).toEqual(['ReadWriteMany']);
  });

  it('gives the model cache of one replica and of several replicas different claims: access modes cannot change', () => {
    const claimOf = (replicas: number) => {
      const { objects } = render({ ...demoRequest, replicas }, 'dedicated');
      const claim = ofKind<V1PersistentVolumeClaim>(
        objects,
        'PersistentVolumeClaim',
      );
      const mounted = ofKind<V1Deployment>(
        objects,
        'Deployment',
      ).spec!.template.spec!.volumes!.find(v => v.name === 'model-cache');
      return {
        name: claim.metadata!.name,
        accessModes: claim.spec!.accessModes,
        mounted: mounted?.persistentVolumeClaim?.claimName,
      };
    };
    expect(claimOf(1)).toEqual({
      name: `${demoRequest.name}-model-cache`,
      accessModes: ['ReadWriteOnce'],
      mounted: `${demoRequest.name}-model-cache`,
    });
    expect(claimOf(2)).toEqual({
      name: `${demoRequest.name}-model-cache-shared`,
      accessModes: ['ReadWriteMany'],
      mounted: `${demoRequest.name}-model-cache-shared`,
    });
  });

  it('renders an HPA v2 on the per-pod queue depth', () => {
    const request: ServiceRequest = {
      ...demoRequest,
      replicas: 2,
      environment: 'production',
      autoscaling: {
        minReplicas: 2,
        maxReplicas: 6,
        targetQueueDepth: 3,
        engine: 'hpa',
      },
    };
    const { objects } = render(request, 'dedicated');
    const hpa = ofKind<V2HorizontalPodAutoscaler>(
      objects,
      'HorizontalPodAutoscaler',
    );
    expect(hpa.apiVersion).toBe('autoscaling/v2');
    expect(hpa.spec!.metrics).toEqual([
      {
        type: 'Pods',
        pods: {
          metric: { name: 'vllm:num_requests_waiting' },
          target: { type: 'AverageValue', averageValue: '3' },
        },
      },
    ]);
    expect(hpa.spec!.minReplicas).toBe(2);
    expect(objects.map(o => o.kind)).toEqual([
      'PersistentVolumeClaim',
      'Service',
      'Deployment',
      'PodDisruptionBudget',
      'HorizontalPodAutoscaler',
    ]);
    expect(
      ofKind<V1PodDisruptionBudget>(objects, 'PodDisruptionBudget').spec!
        .maxUnavailable,
    ).toBe(1);
  });

  it('renders no PodDisruptionBudget outside production and mounts an existing cache claim', () => {
    const { objects } = render(demoRequest, 'dedicated', {
      modelCache: { existingClaim: 'hf-cache' },
      huggingFaceTokenSecret: { name: 'hf', key: 'token' },
      runtimeClassName: 'nvidia',
    });
    expect(objects.map(o => o.kind)).toEqual(['Service', 'Deployment']);
    const pod = ofKind<V1Deployment>(objects, 'Deployment').spec!.template
      .spec!;
    expect(pod.volumes).toContainEqual({
      name: 'model-cache',
      persistentVolumeClaim: { claimName: 'hf-cache' },
    });
    expect(pod.runtimeClassName).toBe('nvidia');
    expect(pod.containers[0].env).toContainEqual({
      name: 'HF_TOKEN',
      valueFrom: { secretKeyRef: { name: 'hf', key: 'token' } },
    });
  });

  it('tolerates each taint of the pool once when the config repeats one', () => {
    const platform = servingAndOcrBatchPlatform();
    const pool = platform.pools.find(p => p.name === 'l4-ondemand')!;
    pool.nodeTaints = [
      ...pool.nodeTaints,
      { key: 'gpu.example.com/maintenance', effect: 'NoExecute' },
      { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' },
      { key: 'gpu.example.com/maintenance', value: '', effect: 'NoExecute' },
    ];
    const deployment = ofKind<V1Deployment>(
      renderServiceManifests(
        platform,
        summariserRequest,
        { tier: 'dedicated', pool: 'l4-ondemand', gpusPerReplica: 1 },
        options,
      ),
      'Deployment',
    );
    expect(deployment.spec!.template.spec!.tolerations).toEqual([
      {
        key: 'nvidia.com/gpu',
        operator: 'Equal',
        value: 'present',
        effect: 'NoSchedule',
      },
      {
        key: 'gpu.example.com/maintenance',
        operator: 'Exists',
        effect: 'NoExecute',
      },
    ]);
  });

  it('renders a tier the environment forbids (an approved exception), since policy is checked before', () => {
    const request: ServiceRequest = {
      ...demoRequest,
      ...small,
      environment: 'production',
    };
    expect(render(request, 'time-sliced').objects.map(o => o.kind)).toContain(
      'Deployment',
    );
  });

  describe('refuses what it cannot render', () => {
    const platform = demoPlatform();
    const placement = {
      tier: 'dedicated' as const,
      pool: 'l4-ondemand',
      gpusPerReplica: 1,
    };
    const cases: Array<[string, () => unknown, RegExp]> = [
      [
        'a name that is not DNS-1123',
        () =>
          renderServiceManifests(
            platform,
            { ...demoRequest, name: 'Chat_1' },
            placement,
            options,
          ),
        /DNS-1123/,
      ],
      [
        'a service id that is not a label value',
        () =>
          renderServiceManifests(platform, demoRequest, placement, {
            serviceId: 'a/b',
          }),
        /label value/,
      ],
      [
        'a namespace of another team',
        () =>
          renderServiceManifests(
            platform,
            { ...demoRequest, namespace: 'search' },
            placement,
            options,
          ),
        /allowed: ml-platform or ml-serving/,
      ],
      [
        'a tier the pool does not offer',
        () =>
          renderServiceManifests(
            platform,
            demoRequest,
            { ...placement, tier: 'mig' },
            options,
          ),
        /offers the dedicated tier/,
      ],
      [
        'a MIG profile outside the layout',
        () =>
          renderServiceManifests(
            platform,
            demoRequest,
            {
              tier: 'mig',
              pool: 'a100-mig',
              migProfile: '7g.80gb',
              gpusPerReplica: 1,
            },
            options,
          ),
        /allowed: MIG profile 1g\.10gb/,
      ],
      [
        'more GPUs than a node has',
        () =>
          renderServiceManifests(
            platform,
            demoRequest,
            { ...placement, gpusPerReplica: 2 },
            options,
          ),
        /no slice/,
      ],
      [
        'an unknown pool',
        () =>
          renderServiceManifests(
            platform,
            demoRequest,
            { ...placement, pool: 'nope' },
            options,
          ),
        /Unknown pool/,
      ],
      [
        'an unknown model',
        () =>
          renderServiceManifests(
            platform,
            { ...demoRequest, model: 'gpt-9' },
            placement,
            options,
          ),
        /Unknown model/,
      ],
      [
        'a placement on another pool than requested',
        () =>
          renderServiceManifests(
            platform,
            { ...demoRequest, pool: 'h100' },
            placement,
            options,
          ),
        /differs/,
      ],
      [
        'autoscaling Ollama',
        () =>
          renderServiceManifests(
            platform,
            {
              ...demoRequest,
              runtime: 'ollama',
              autoscaling: {
                minReplicas: 1,
                maxReplicas: 2,
                targetQueueDepth: 1,
                engine: 'keda',
              },
            },
            placement,
            options,
          ),
        /Ollama/,
      ],
      [
        'an HPA scaling to zero',
        () =>
          renderServiceManifests(
            platform,
            {
              ...demoRequest,
              autoscaling: {
                minReplicas: 0,
                maxReplicas: 2,
                targetQueueDepth: 1,
                engine: 'hpa',
              },
            },
            placement,
            options,
          ),
        /keda/,
      ],
      [
        'a negative concurrency',
        () =>
          renderServiceManifests(
            platform,
            { ...demoRequest, concurrency: -1 },
            placement,
            options,
          ),
        /positive integer/,
      ],
    ];
    it.each(cases)('%s', (_, call, message) => {
      expect(call).toThrow(
        expect.objectContaining({
          name: 'InputError',
          message: expect.stringMatching(message),
        }),
      );
    });
  });
});
