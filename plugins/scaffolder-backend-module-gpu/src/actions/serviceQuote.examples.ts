import { TemplateExample } from '@backstage/plugin-scaffolder-node';
import yaml from 'yaml';

export const examples: TemplateExample[] = [
  {
    description:
      'Quote the summariser (Llama-3.1-8B, bf16, 8K context, 64 sequences) for production',
    example: yaml.stringify({
      steps: [
        {
          id: 'quote',
          action: 'gpu:service:quote',
          name: 'Quote the GPU service',
          input: {
            name: 'summariser',
            team: 'ml-platform',
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
      'Quote the report summariser with a 2-second p95 latency budget (vLLM only), as it will be created',
    example: yaml.stringify({
      steps: [
        {
          id: 'quote',
          action: 'gpu:service:quote',
          name: 'Quote the GPU service',
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
    description: 'Quote a small Ollama chatbot on a time-sliced share in dev',
    example: yaml.stringify({
      steps: [
        {
          id: 'quote',
          action: 'gpu:service:quote',
          name: 'Quote the GPU service',
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
          },
        },
      ],
    }),
  },
  {
    description:
      "Quote a dev assistant that scales to zero when idle and up to 3 replicas on its queue: each option's scaling says which replicas its monthly cost reserves and prices (the maximum, or the replica that wakes it plus burst, as the platform decides)",
    example: yaml.stringify({
      steps: [
        {
          id: 'quote',
          action: 'gpu:service:quote',
          name: 'Quote the GPU service',
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
              maxReplicas: 3,
              targetQueueDepth: 2,
              engine: 'keda',
            },
          },
        },
      ],
    }),
  },
];
