import { TemplateExample } from '@backstage/plugin-scaffolder-node';
import yaml from 'yaml';

export const examples: TemplateExample[] = [
  {
    description:
      'Write the platform objects of the GitOps cluster gpu-gitops under platform/',
    example: yaml.stringify({
      steps: [
        {
          id: 'render',
          action: 'gpu:platform:render',
          name: 'Render the platform manifests',
          input: { cluster: 'gpu-gitops' },
        },
      ],
    }),
  },
  {
    description:
      "Write them into an Argo CD application directory of the platform's repository (clusters/gpu-gitops/gpu-platform)",
    example: yaml.stringify({
      steps: [
        {
          id: 'render',
          action: 'gpu:platform:render',
          name: 'Render the platform manifests',
          input: {
            cluster: 'gpu-gitops',
            targetDir: 'clusters/gpu-gitops/gpu-platform',
          },
        },
      ],
    }),
  },
];
