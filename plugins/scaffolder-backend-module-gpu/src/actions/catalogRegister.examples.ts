import { TemplateExample } from '@backstage/plugin-scaffolder-node';
import yaml from 'yaml';

export const examples: TemplateExample[] = [
  {
    description:
      'Register the catalog-info.yaml a previous step wrote into the workspace (no Git provider needed)',
    example: yaml.stringify({
      steps: [
        {
          id: 'register',
          action: 'gpu:catalog:register',
          name: 'Register in the catalog',
          input: {
            catalogInfoPath: 'catalog-info.yaml',
          },
        },
      ],
    }),
  },
  {
    description:
      'Register a catalog file kept in a subdirectory, without waiting for the catalog',
    example: yaml.stringify({
      steps: [
        {
          id: 'register',
          action: 'gpu:catalog:register',
          name: 'Register in the catalog',
          input: {
            catalogInfoPath: 'service/catalog-info.yaml',
            waitForEntitySeconds: 0,
          },
        },
      ],
    }),
  },
];
