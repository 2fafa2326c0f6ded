import { TemplateExample } from '@backstage/plugin-scaffolder-node';
import yaml from 'yaml';

export const examples: TemplateExample[] = [
  {
    description:
      'Write the catalog-info.yaml of a new GPU model service from the outputs of gpu:service:create',
    example: yaml.stringify({
      steps: [
        {
          id: 'catalog-info',
          action: 'gpu:catalog:write',
          name: 'Write catalog-info.yaml',
          input: {
            name: 'summariser',
            owner: 'group:default/ml-platform',
            description: 'Summarises support tickets',
            lifecycle: 'production',
            system: 'model-serving',
            tags: ['gpu', 'vllm', 'dedicated'],
            annotations: {
              'backstage.io/kubernetes-id': 'summariser',
              'backstage.io/kubernetes-namespace': 'ml-platform',
              'gpu.backstage.io/service-id':
                '6a1f0d52-53f6-4a55-9b8e-0d7e4c0f4d11',
            },
            links: [
              {
                url: 'http://summariser.ml-platform.svc.cluster.local:8000',
                title: 'Endpoint inside the cluster',
              },
            ],
          },
        },
      ],
    }),
  },
  {
    description:
      'Write a minimal Component (type service, lifecycle experimental) into a subdirectory of the workspace',
    example: yaml.stringify({
      steps: [
        {
          id: 'catalog-info',
          action: 'gpu:catalog:write',
          name: 'Write catalog-info.yaml',
          input: {
            name: 'chatbot',
            owner: 'group:default/ml-platform',
            targetPath: 'service/catalog-info.yaml',
          },
        },
      ],
    }),
  },
];
