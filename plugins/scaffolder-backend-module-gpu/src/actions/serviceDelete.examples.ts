import { TemplateExample } from '@backstage/plugin-scaffolder-node';
import yaml from 'yaml';

export const examples: TemplateExample[] = [
  {
    description:
      'Decommission the GPU service behind a catalog component and unregister the component',
    example: yaml.stringify({
      steps: [
        {
          id: 'delete',
          action: 'gpu:service:delete',
          name: 'Delete the GPU service',
          input: {
            entityRef: 'component:default/summariser',
            unregister: true,
          },
        },
      ],
    }),
  },
  {
    description: 'Delete a GPU service by its id, keeping the catalog entity',
    example: yaml.stringify({
      steps: [
        {
          id: 'delete',
          action: 'gpu:service:delete',
          name: 'Delete the GPU service',
          input: {
            serviceId: '6a1f0d52-53f6-4a55-9b8e-0d7e4c0f4d11',
          },
        },
      ],
    }),
  },
];
