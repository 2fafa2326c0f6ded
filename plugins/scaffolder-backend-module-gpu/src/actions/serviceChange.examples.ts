import { TemplateExample } from '@backstage/plugin-scaffolder-node';
import yaml from 'yaml';

export const examples: TemplateExample[] = [
  {
    description:
      'Scale the GitOps summariser to 2 replicas and write its changed manifests under deploy/summariser for a pull request whose description gives the cost and quota before and after',
    example: yaml.stringify({
      steps: [
        {
          id: 'change',
          action: 'gpu:service:change',
          name: 'Change the GPU service',
          input: {
            entityRef: 'component:default/summariser',
            replicas: 2,
            targetDir: 'deploy/summariser',
            layout: 'kustomization',
            whenPendingApproval: 'fail',
          },
        },
        {
          id: 'publish',
          action: 'gpu:gitea:pull-request',
          name: 'Open a pull request on Gitea',
          input: {
            repoUrl: 'gitea.example.com?owner=ml-platform&repo=gitops',
            branchName: 'gpu-service-summariser-change',
            title: 'Change GPU model service summariser',
            description: '${{ steps.change.output.description }}',
            sourcePath: 'deploy/summariser',
            targetPath: 'deploy/summariser',
          },
        },
      ],
    }),
  },
  {
    description:
      'Move a service Backstage applies itself from a dedicated L4 to a MIG slice of an A100, by its id (no manifests written)',
    example: yaml.stringify({
      steps: [
        {
          id: 'change',
          action: 'gpu:service:change',
          name: 'Change the GPU service',
          input: {
            serviceId: '6a1f0d52-53f6-4a55-9b8e-0d7e4c0f4d11',
            tier: 'mig',
            pool: 'a100-mig',
          },
        },
      ],
    }),
  },
];
