import type {
  V1Container,
  V1Deployment,
  V1Volume,
} from '@kubernetes/client-node';
import { distinctTaints } from '../kueue/distinctTaints';
import { tolerationsFor } from '../kueue/tolerationsFor';
import { RUNTIME_PORTS } from './defaults';
import { runtimeImage } from './images';
import { ollamaContainers } from './ollamaContainers';
import { GPU_CLAIM_NAME } from './renderResourceClaimTemplate';
import { modelCacheClaimName } from './renderModelCacheClaim';
import { ServiceContext } from './resolveServiceContext';
import { ROLLOUT_ANNOTATION, rolloutStrategy } from './rolloutStrategy';
import { serviceAnnotations } from './serviceAnnotations';
import { serviceObjectNames } from './serviceNames';
import { selectorLabels, workloadLabels } from './serviceLabels';
import { vllmContainer } from './vllmContainer';

/** Size of the `/dev/shm` memory volume vLLM uses for inter-GPU communication. */
const SHM_SIZE = '2Gi';

/**
 * The Deployment of a service. Pods select the pool's nodes (which also steers Kueue to the pool's flavor when
 * several flavors offer the same resource) and tolerate its taints. Rollouts follow {@link rolloutStrategy}.
 * `spec.replicas` is left to the autoscaler when there is one.
 */
export function renderDeployment(context: ServiceContext): V1Deployment {
  const { request, pool, options } = context;
  const names = serviceObjectNames(request.name);
  const taints = distinctTaints(pool);
  const labels = workloadLabels(context);
  const claimName = modelCacheClaimName(context);
  const volumes: V1Volume[] = [
    { name: 'model-cache', persistentVolumeClaim: { claimName } },
  ];
  let containers: V1Container[];
  let initContainers: V1Container[] | undefined;
  if (request.runtime === 'vllm') {
    containers = [vllmContainer(context, runtimeImage(options, 'vllm'))];
    volumes.unshift({
      name: 'dshm',
      emptyDir: { medium: 'Memory', sizeLimit: SHM_SIZE },
    });
  } else {
    const ollama = ollamaContainers(context, runtimeImage(options, 'ollama'));
    containers = [ollama.container];
    initContainers = [ollama.initContainer];
  }
  const podAnnotations = serviceAnnotations(
    context,
    request.runtime === 'vllm'
      ? {
          'prometheus.io/scrape': 'true',
          'prometheus.io/port': String(RUNTIME_PORTS.vllm),
          'prometheus.io/path': '/metrics',
        }
      : {},
  );
  const rollout = rolloutStrategy(context);
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: names.deployment,
      namespace: context.namespace,
      labels,
      annotations: serviceAnnotations(
        context,
        rollout.note ? { [ROLLOUT_ANNOTATION]: rollout.note } : {},
      ),
    },
    spec: {
      replicas: request.autoscaling ? undefined : request.replicas,
      revisionHistoryLimit: 3,
      // Weights may take long to download on a cold node.
      progressDeadlineSeconds: 3600,
      selector: { matchLabels: selectorLabels(context) },
      strategy: rollout.strategy,
      template: {
        metadata: { labels, annotations: podAnnotations },
        spec: {
          automountServiceAccountToken: false,
          // Service links would inject e.g. VLLM_PORT, which vLLM reads as its own setting.
          enableServiceLinks: false,
          runtimeClassName: options.runtimeClassName,
          securityContext: options.podSecurityContext,
          nodeSelector:
            Object.keys(pool.nodeLabels).length > 0
              ? { ...pool.nodeLabels }
              : undefined,
          tolerations: taints.length > 0 ? tolerationsFor(taints) : undefined,
          terminationGracePeriodSeconds: 60,
          initContainers,
          containers,
          resourceClaims:
            pool.allocation.backend === 'dra'
              ? [
                  {
                    name: GPU_CLAIM_NAME,
                    resourceClaimTemplateName: names.resourceClaimTemplate,
                  },
                ]
              : undefined,
          volumes,
        },
      },
    },
  };
}
