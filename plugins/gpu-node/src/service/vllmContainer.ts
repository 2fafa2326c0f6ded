import type { V1Container, V1EnvVar, V1Probe } from '@kubernetes/client-node';
import { containerResources } from './containerResources';
import { RUNTIME_PORTS } from './defaults';
import { ServiceContext } from './resolveServiceContext';
import { vllmArgs } from './vllmArgs';

/** Mount path of the model cache in the vLLM container (Hugging Face's default cache). */
export const VLLM_CACHE_PATH = '/root/.cache/huggingface';

function healthProbe(periodSeconds: number, failureThreshold: number): V1Probe {
  return {
    httpGet: { path: '/health', port: 'http' },
    periodSeconds,
    timeoutSeconds: 5,
    failureThreshold,
  };
}

/** The vLLM OpenAI-compatible server container. */
export function vllmContainer(
  context: ServiceContext,
  image: string,
): V1Container {
  const secret = context.options.huggingFaceTokenSecret;
  const env: V1EnvVar[] = [{ name: 'HF_HOME', value: VLLM_CACHE_PATH }];
  if (secret) {
    env.push({
      name: 'HF_TOKEN',
      valueFrom: { secretKeyRef: { name: secret.name, key: secret.key } },
    });
  }
  return {
    name: 'vllm',
    image,
    args: vllmArgs(context),
    env,
    ports: [
      { name: 'http', containerPort: RUNTIME_PORTS.vllm, protocol: 'TCP' },
    ],
    // Downloading and loading weights can take many minutes; the startup probe allows 30.
    startupProbe: healthProbe(10, 180),
    readinessProbe: healthProbe(10, 3),
    livenessProbe: healthProbe(30, 3),
    resources: containerResources(context),
    securityContext: context.options.containerSecurityContext,
    volumeMounts: [
      { name: 'dshm', mountPath: '/dev/shm' },
      { name: 'model-cache', mountPath: VLLM_CACHE_PATH },
    ],
  };
}
