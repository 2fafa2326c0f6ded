import { TemplateExample } from '@backstage/plugin-scaffolder-node';
import yaml from 'yaml';

export const examples: TemplateExample[] = [
  {
    description:
      'Write the manifests of a service created in GitOps mode as a kustomization under manifests/',
    example: yaml.stringify({
      steps: [
        {
          id: 'render',
          action: 'gpu:service:render',
          name: 'Render the manifests',
          input: {
            serviceId: '6a1f0d52-53f6-4a55-9b8e-0d7e4c0f4d11',
            targetDir: 'manifests',
            layout: 'kustomization',
          },
        },
      ],
    }),
  },
  {
    description:
      'Write one multi-document file for an Argo CD application directory (deploy/summariser/manifests.yaml)',
    example: yaml.stringify({
      steps: [
        {
          id: 'render',
          action: 'gpu:service:render',
          name: 'Render the manifests',
          input: {
            serviceId: '6a1f0d52-53f6-4a55-9b8e-0d7e4c0f4d11',
            targetDir: 'deploy/summariser',
            layout: 'single',
          },
        },
      ],
    }),
  },
];
