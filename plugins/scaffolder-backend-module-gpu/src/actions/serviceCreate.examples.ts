import { TemplateExample } from '@backstage/plugin-scaffolder-node';
import yaml from 'yaml';

export const examples: TemplateExample[] = [
  {
    description:
      'Create the summariser (Llama-3.1-8B on vLLM) in production on the recommended tier',
    example: yaml.stringify({
      steps: [
        {
          id: 'create',
          action: 'gpu:service:create',
          name: 'Create the GPU service',
          input: {
            name: 'summariser',
            team: 'ml-platform',
            namespace: 'ml-serving',
            model: 'llama-3.1-8b',
            runtime: 'vllm',
            dtype: 'bf16',
            maxModelLen: 8192,
            concurrency: 64,
            replicas: 1,
            environment: 'production',
            expectedTokensPerSecond: 600,
          },
        },
      ],
    }),
  },
  {
    description:
      'Create the report summariser with a latency budget: its answers must come within 2 seconds at the 95th percentile (end to end, measured by vLLM); the card shows the measured p95 against it and, on a platform with gpu.alerts, its alert rule fires when it is exceeded',
    example: yaml.stringify({
      steps: [
        {
          id: 'create',
          action: 'gpu:service:create',
          name: 'Create the GPU service',
          input: {
            name: 'report-summariser',
            team: 'ml-platform',
            model: 'llama-3.1-8b',
            runtime: 'vllm',
            dtype: 'bf16',
            maxModelLen: 8192,
            concurrency: 64,
            replicas: 1,
            environment: 'production',
            latencyBudget: { p95Seconds: 2 },
          },
        },
      ],
    }),
  },
  {
    description:
      "Create a summariser that scales on its queue from 1 to 4 replicas (one more per 4 waiting requests), and a dev assistant that scales to zero when idle and wakes on its first request (on a platform whose gpu.serviceDefaults.scaleToZero gives a wake path: KEDA's HTTP add-on or a wake query)",
    example: yaml.stringify({
      steps: [
        {
          id: 'create',
          action: 'gpu:service:create',
          name: 'Create the autoscaled GPU service',
          input: {
            name: 'summariser',
            team: 'ml-platform',
            namespace: 'ml-serving',
            model: 'llama-3.1-8b',
            runtime: 'vllm',
            dtype: 'bf16',
            maxModelLen: 8192,
            concurrency: 64,
            replicas: 1,
            environment: 'production',
            autoscaling: {
              minReplicas: 1,
              maxReplicas: 4,
              targetQueueDepth: 4,
              engine: 'keda',
            },
          },
        },
        {
          id: 'create-idle',
          action: 'gpu:service:create',
          name: 'Create the scale-to-zero GPU service',
          input: {
            name: 'dev-assistant',
            team: 'ml-platform',
            model: 'llama-3.2-3b',
            runtime: 'vllm',
            dtype: 'int4',
            maxModelLen: 4096,
            concurrency: 4,
            replicas: 1,
            environment: 'dev',
            autoscaling: {
              minReplicas: 0,
              maxReplicas: 1,
              targetQueueDepth: 2,
              engine: 'keda',
            },
          },
        },
      ],
    }),
  },
  {
    description:
      'Create an Ollama chatbot on a time-sliced T4 share in dev, for an existing catalog component',
    example: yaml.stringify({
      steps: [
        {
          id: 'create',
          action: 'gpu:service:create',
          name: 'Create the GPU service',
          input: {
            name: 'support-chatbot',
            team: 'search',
            model: 'llama-3.2-3b',
            runtime: 'ollama',
            dtype: 'int4',
            maxModelLen: 4096,
            concurrency: 2,
            replicas: 1,
            environment: 'dev',
            tier: 'time-sliced',
            pool: 't4-timeslice',
            entityRef: 'component:default/support-chatbot',
          },
        },
      ],
    }),
  },
  {
    description:
      'Request more GPUs than the team quota allows: the step succeeds with status pending-approval and the service is deployed once the platform team approves',
    example: yaml.stringify({
      steps: [
        {
          id: 'create',
          action: 'gpu:service:create',
          name: 'Request the GPU service',
          input: {
            name: 'batch-summariser',
            team: 'ml-platform',
            model: 'llama-3.1-8b',
            runtime: 'vllm',
            maxModelLen: 8192,
            concurrency: 64,
            replicas: 2,
            environment: 'dev',
            tier: 'dedicated',
            pool: 'spot-l4',
            whenPendingApproval: 'continue',
          },
        },
      ],
    }),
  },
];
