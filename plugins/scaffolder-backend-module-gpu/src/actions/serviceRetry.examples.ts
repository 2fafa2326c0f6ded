import { TemplateExample } from '@backstage/plugin-scaffolder-node';
import yaml from 'yaml';

export const examples: TemplateExample[] = [
  {
    description:
      'Retry the GitOps summariser whose pull request was closed without merging: reserved again, its manifests written under deploy/summariser for a new pull request whose description says why the last one ended, the cost and the quota, then confirmed with it',
    example: yaml.stringify({
      steps: [
        {
          id: 'retry',
          action: 'gpu:service:retry',
          name: 'Retry the GPU service',
          input: {
            entityRef: 'component:default/summariser',
            targetDir: 'deploy/summariser',
            layout: 'kustomization',
          },
        },
        {
          id: 'publish',
          action: 'gpu:gitea:pull-request',
          name: 'Open a pull request on Gitea',
          input: {
            repoUrl: 'gitea.example.com?owner=ml-platform&repo=gitops',
            branchName:
              'gpu-service-summariser-retry-${{ steps.retry.output.generation }}',
            title: 'Retry GPU model service summariser',
            description: '${{ steps.retry.output.description }}',
            sourcePath: 'deploy/summariser',
            targetPath: 'deploy/summariser',
          },
        },
        {
          id: 'confirm',
          action: 'gpu:service:confirm',
          name: 'Follow the new request',
          input: {
            serviceId: '${{ steps.retry.output.serviceId }}',
            pullRequestUrl: '${{ steps.publish.output.pullRequestUrl }}',
          },
        },
      ],
    }),
  },
  {
    description:
      'Retry a GitOps service by its id after its pull request expired, without writing files (publish them with gpu:service:render)',
    example: yaml.stringify({
      steps: [
        {
          id: 'retry',
          action: 'gpu:service:retry',
          name: 'Retry the GPU service',
          input: {
            serviceId: '6a1f0d52-53f6-4a55-9b8e-0d7e4c0f4d11',
          },
        },
      ],
    }),
  },
];
