import { TemplateExample } from '@backstage/plugin-scaffolder-node';
import yaml from 'yaml';

export const examples: TemplateExample[] = [
  {
    description:
      'Submit the OCR backlog (600 documents of 500 pages, one L4 each) to the search team’s spot queue: 12 pods asked for, Kueue runs as many as the quota holds',
    example: yaml.stringify({
      steps: [
        {
          id: 'submit',
          action: 'gpu:batch:submit',
          name: 'Submit the OCR batch job',
          input: {
            name: 'ocr-backlog',
            team: 'search',
            namespace: 'batch',
            environment: 'dev',
            pool: 'spot-l4',
            image: 'registry.example.com/ocr-worker:1.4.2',
            args: ['--pages-per-document', '500'],
            completions: 600,
            parallelism: 12,
            gpusPerPod: 1,
            backoffLimit: 6,
            env: { INPUT_PREFIX: 's3://ocr-in/docs' },
          },
        },
      ],
    }),
  },
  {
    description:
      'Render a batch job for the GitOps repository: nothing is applied, the manifests output is what to commit',
    example: yaml.stringify({
      steps: [
        {
          id: 'submit',
          action: 'gpu:batch:submit',
          name: 'Render the batch job',
          input: {
            name: 'embeddings-refresh',
            team: 'search',
            pool: 'spot-l4',
            image: 'registry.example.com/embedder:2.0.0',
            completions: 40,
            parallelism: 4,
            minParallelism: 2,
            nonRetriableExitCodes: [42, 43],
            mode: 'gitops',
          },
        },
      ],
    }),
  },
];
