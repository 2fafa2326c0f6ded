import { TemplateExample } from '@backstage/plugin-scaffolder-node';
import yaml from 'yaml';

export const examples: TemplateExample[] = [
  {
    description:
      "Propose a service's rendered manifests to the team's GitOps repository on Gitea (added or changed under deploy/<name>/)",
    example: yaml.stringify({
      steps: [
        {
          id: 'publish-gitea',
          action: 'gpu:gitea:pull-request',
          name: 'Open a pull request on Gitea',
          input: {
            repoUrl: 'gitea.example.com?owner=ml-platform&repo=gitops',
            branchName: 'gpu-service-summariser',
            title: 'GPU model service summariser',
            description:
              'Manifests of the GPU model service summariser (dedicated on l4-ondemand).',
            sourcePath: 'deploy/summariser',
            targetPath: 'deploy/summariser',
          },
        },
      ],
    }),
  },
  {
    description:
      "Propose a decommission: remove the service's directory from the GitOps repository, so the controller prunes its objects",
    example: yaml.stringify({
      steps: [
        {
          id: 'remove-gitea',
          action: 'gpu:gitea:pull-request',
          name: 'Propose removing the service on Gitea',
          input: {
            repoUrl: 'gitea.example.com?owner=ml-platform&repo=gitops',
            branchName: 'gpu-service-summariser-decommission',
            title: 'Decommission GPU model service summariser',
            targetPath: 'deploy/summariser',
            remove: true,
          },
        },
      ],
    }),
  },
];
