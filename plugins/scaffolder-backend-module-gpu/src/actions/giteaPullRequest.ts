import { resolveSafeChildPath } from '@backstage/backend-plugin-api';
import { InputError } from '@backstage/errors';
import { ScmIntegrationRegistry } from '@backstage/integration';
import {
  createTemplateAction,
  parseRepoUrl,
  serializeDirectoryContents,
} from '@backstage/plugin-scaffolder-node';
import { z as zod } from 'zod/v3';
import { GiteaPullRequests } from '../gitops/GiteaPullRequests';
import { examples } from './giteaPullRequest.examples';
import { parseActionInput } from './parseActionInput';

const ID = 'gpu:gitea:pull-request';

const inputFields = {
  repoUrl: (z: typeof zod) =>
    z
      .string()
      .min(1)
      .describe(
        'The existing repository, as RepoUrlPicker gives it: <host>?owner=<owner>&repo=<repo>; the host needs an integrations.gitea entry',
      ),
  branchName: (z: typeof zod) =>
    z
      .string()
      .min(1)
      .max(200)
      .regex(/^[A-Za-z0-9._/-]+$/)
      .describe('The new branch the change is committed to'),
  title: (z: typeof zod) =>
    z.string().min(1).max(255).describe('Title of the pull request'),
  description: (z: typeof zod) =>
    z
      .string()
      .max(65_000)
      .default('')
      .describe('Body of the pull request (Markdown)'),
  commitMessage: (z: typeof zod) =>
    z
      .string()
      .min(1)
      .optional()
      .describe('Message of the commit; the title when omitted'),
  sourcePath: (z: typeof zod) =>
    z
      .string()
      .optional()
      .describe(
        'Workspace directory whose files the target directory must hold; omitted with remove: true',
      ),
  targetPath: (z: typeof zod) =>
    z
      .string()
      .min(1)
      .describe(
        'Directory of the repository the change replaces (files added, changed or removed)',
      ),
  remove: (z: typeof zod) =>
    z
      .boolean()
      .default(false)
      .describe(
        'Remove the target directory instead (a decommission); sourcePath must then be omitted',
      ),
};

/**
 * `gpu:gitea:pull-request`: proposes, in a pull request on a Gitea server, that a directory of an existing
 * repository hold exactly the files of a workspace directory (or be removed). What a GitOps repository on Gitea needs
 * for a service's create, change or decommission; Backstage's own `publish:gitea` only creates repositories. The
 * credentials are those of the host's `integrations.gitea` entry.
 */
export function createGiteaPullRequestAction(options: {
  integrations: ScmIntegrationRegistry;
}) {
  return createTemplateAction({
    id: ID,
    description:
      'Opens a pull request on a Gitea server that adds, updates or removes one directory of an existing repository ' +
      '(e.g. a service directory of a GitOps repository), with the credentials of integrations.gitea',
    examples,
    supportsDryRun: true,
    schema: {
      input: inputFields,
      output: {
        pullRequestUrl: z =>
          z.string().describe('Web address of the pull request'),
        pullRequestNumber: z => z.number().describe('Its number'),
        branchName: z => z.string().describe('The branch it merges'),
        created: z => z.array(z.string()).describe('Paths it adds'),
        updated: z => z.array(z.string()).describe('Paths it changes'),
        deleted: z => z.array(z.string()).describe('Paths it removes'),
      },
    },
    async handler(ctx) {
      const input = parseActionInput(ID, inputFields, ctx.input);
      if (input.remove === (input.sourcePath !== undefined)) {
        throw new InputError(
          `Invalid input to ${ID}: give either sourcePath or remove: true`,
        );
      }
      const { host, owner, repo } = parseRepoUrl(
        input.repoUrl,
        options.integrations,
      );
      const integration = options.integrations.gitea.byHost(host);
      if (!integration) {
        throw new InputError(
          `Invalid input to ${ID}: repoUrl: no integrations.gitea entry for host ${host}`,
        );
      }
      if (!owner || !repo) {
        throw new InputError(
          `Invalid input to ${ID}: repoUrl: owner and repo are required`,
        );
      }
      const files: Record<string, Buffer> = {};
      if (input.sourcePath !== undefined) {
        const source = resolveSafeChildPath(
          ctx.workspacePath,
          input.sourcePath,
        );
        for (const file of await serializeDirectoryContents(source)) {
          files[file.path] = file.content;
        }
        if (Object.keys(files).length === 0) {
          throw new InputError(
            `Invalid input to ${ID}: sourcePath: ${input.sourcePath} holds no file (use remove: true to remove the directory)`,
          );
        }
      }
      if (ctx.isDryRun) {
        ctx.logger.info(
          `Dry run: would open a pull request on ${host} ${owner}/${repo} from ${input.branchName}`,
        );
        ctx.output('pullRequestUrl', `${integration.config.baseUrl ?? ''}`);
        ctx.output('pullRequestNumber', 0);
        ctx.output('branchName', input.branchName);
        ctx.output('created', []);
        ctx.output('updated', []);
        ctx.output('deleted', []);
        return;
      }
      const pulls = new GiteaPullRequests(integration.config, owner, repo);
      const opened = await pulls.proposeDirectory({
        directory: input.targetPath,
        files,
        branch: input.branchName,
        title: input.title,
        body: input.description,
        commitMessage: input.commitMessage ?? input.title,
      });
      ctx.logger.info(
        `Opened pull request #${opened.number} on ${owner}/${repo}: ${opened.changes.created.length} added, ` +
          `${opened.changes.updated.length} changed, ${opened.changes.deleted.length} removed under ${input.targetPath}`,
      );
      ctx.output('pullRequestUrl', opened.url);
      ctx.output('pullRequestNumber', opened.number);
      ctx.output('branchName', opened.branch);
      ctx.output('created', opened.changes.created);
      ctx.output('updated', opened.changes.updated);
      ctx.output('deleted', opened.changes.deleted);
    },
  });
}
