import { TemplateExample } from '@backstage/plugin-scaffolder-node';
import yaml from 'yaml';

export const examples: TemplateExample[] = [
  {
    description:
      'Keep the GPU service a provisional create step made, as the last step of the template',
    example: yaml.stringify({
      steps: [
        {
          id: 'confirm',
          action: 'gpu:service:confirm',
          name: 'Keep the GPU service',
          input: {
            serviceId: '6a1f0d52-53f6-4a55-9b8e-0d7e4c0f4d11',
          },
        },
      ],
    }),
  },
];
