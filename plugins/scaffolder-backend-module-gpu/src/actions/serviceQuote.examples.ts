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
];
