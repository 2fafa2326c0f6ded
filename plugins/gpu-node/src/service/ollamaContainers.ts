import type { V1Container, V1Probe } from '@kubernetes/client-node';
import { containerResources } from './containerResources';
import { RUNTIME_PORTS } from './defaults';
import { ServiceContext } from './resolveServiceContext';

/** Mount path of the model store in the Ollama containers. */
export const OLLAMA_MODELS_PATH = '/root/.ollama';

/** Starts a throw-away server, waits up to a minute for it, pulls the model into the shared volume. */
const PULL_SCRIPT = [
  'ollama serve >/dev/null 2>&1 &',
  'for i in $(seq 60); do ollama list >/dev/null 2>&1 && break; sleep 1; done;',
  'ollama pull "$OLLAMA_MODEL"',
].join(' ');

function rootProbe(periodSeconds: number, failureThreshold: number): V1Probe {
  return {
    httpGet: { path: '/', port: 'http' },
    periodSeconds,
    timeoutSeconds: 5,
    failureThreshold,
  };
}

/** The Ollama tag of the service's dtype, e.g. `llama3.1:8b-instruct-q4_K_M` for int4. */
function ollamaTag(context: ServiceContext): string {
  const { checkpoint } = context;
  if (checkpoint.runtime !== 'ollama') {
    throw new Error(
      `Ollama containers need an Ollama tag; the ${context.dtype} checkpoint is for ${checkpoint.runtime}`,
    );
  }
  return checkpoint.tag;
}

/**
 * The Ollama server and the init container that pulls the model tag first (Ollama's API does not pull on demand).
 */
export function ollamaContainers(
  context: ServiceContext,
  image: string,
): { initContainer: V1Container; container: V1Container } {
  const { request } = context;
  const volumeMounts = [{ name: 'model-cache', mountPath: OLLAMA_MODELS_PATH }];
  return {
    initContainer: {
      name: 'pull-model',
      image,
      command: ['/bin/sh', '-c', PULL_SCRIPT],
      env: [{ name: 'OLLAMA_MODEL', value: ollamaTag(context) }],
      resources: {
        requests: { cpu: '500m', memory: '1Gi' },
        limits: { memory: '2Gi' },
      },
      securityContext: context.options.containerSecurityContext,
      volumeMounts,
    },
    container: {
      name: 'ollama',
      image,
      env: [
        { name: 'OLLAMA_CONTEXT_LENGTH', value: String(request.maxModelLen) },
        { name: 'OLLAMA_KEEP_ALIVE', value: '-1' },
        { name: 'OLLAMA_MAX_LOADED_MODELS', value: '1' },
        { name: 'OLLAMA_NUM_PARALLEL', value: String(request.concurrency) },
      ],
      ports: [
        { name: 'http', containerPort: RUNTIME_PORTS.ollama, protocol: 'TCP' },
      ],
      startupProbe: rootProbe(5, 60),
      readinessProbe: rootProbe(10, 3),
      livenessProbe: rootProbe(30, 3),
      resources: containerResources(context),
      securityContext: context.options.containerSecurityContext,
      volumeMounts,
    },
  };
}
