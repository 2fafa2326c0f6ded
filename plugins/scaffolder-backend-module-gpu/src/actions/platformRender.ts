import {
  AuthService,
  DiscoveryService,
  resolveSafeChildPath,
} from '@backstage/backend-plugin-api';
import { InputError } from '@backstage/errors';
import { createTemplateAction } from '@backstage/plugin-scaffolder-node';
import {
  clusterModeInWords,
  PlatformManifestsResponse,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { GpuBackendClient } from '@gpu-platform/backstage-plugin-gpu-node';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z as zod } from 'zod/v3';
import { parseActionInput } from './parseActionInput';
import { examples } from './platformRender.examples';

const ID = 'gpu:platform:render';

const inputFields = {
  cluster: (z: typeof zod) =>
    z
      .string()
      .min(1)
      .describe(
        'A cluster of gpu.clusters in gitops (or dry-run) mode whose platform objects to render',
      ),
  targetDir: (z: typeof zod) =>
    z
      .string()
      .default('platform')
      .describe(
        'Directory in the workspace to write the files into (gpu-operator/, kueue/, karpenter/, monitoring/ and kustomization.yaml)',
      ),
};

/**
 * `gpu:platform:render`: writes every platform object of a GitOps cluster (`GET /platform/manifests` of the gpu
 * backend, with the initiator's credentials: the platform team's `gpu.quota.read`) into the workspace, for a publish
 * step to the platform's GitOps repository.
 *
 * @public
 */
export function createPlatformRenderAction(options: {
  discovery: DiscoveryService;
  auth: AuthService;
}) {
  const client = new GpuBackendClient(options);
  return createTemplateAction({
    id: ID,
    description:
      "Writes the GPU platform's objects of a GitOps cluster (GPU Operator ConfigMaps, Kueue objects with the stored team quotas, Karpenter NodePools, alert PrometheusRules and a kustomization.yaml) into the workspace, for a publish step",
    examples,
    supportsDryRun: true,
    schema: {
      input: inputFields,
      output: {
        targetDir: z =>
          z.string().describe('Workspace directory holding the files'),
        files: z =>
          z
            .array(z.string())
            .describe(
              'Written files, relative to targetDir, in apply order; kustomization.yaml last',
            ),
        mode: z => z.string().describe('The cluster mode: gitops or dry-run'),
        modeText: z =>
          z
            .string()
            .describe(
              "The cluster mode in words for the template's result, e.g. 'delivered through a pull request to the GitOps repository'",
            ),
        absent: z =>
          z
            .array(z.object({ part: z.string(), reason: z.string() }))
            .describe(
              'Parts left out and why, e.g. karpenter when no pool is Karpenter-managed',
            ),
      },
    },
    async handler(ctx) {
      const input = parseActionInput(ID, inputFields, ctx.input);
      const directory = safeChild(
        ctx.workspacePath,
        input.targetDir,
        `targetDir: '${input.targetDir}' is outside the workspace`,
      );
      const credentials = await ctx.getInitiatorCredentials();
      let manifests: PlatformManifestsResponse;
      try {
        manifests = await client.getPlatformManifests(input.cluster, {
          credentials,
        });
      } catch (error) {
        if (error instanceof InputError) {
          throw new InputError(
            `Invalid input to ${ID}: cluster: ${error.message}`,
          );
        }
        throw error;
      }
      // Every path is checked before the first file is written: a bad one leaves the workspace untouched.
      const targets = manifests.files.map(file => ({
        target: safeChild(
          directory,
          file.path,
          `the gpu backend answered a file outside targetDir: '${file.path}'`,
        ),
        content: file.content,
      }));
      for (const { target, content } of targets) {
        await fs.mkdir(path.dirname(target), { recursive: true });
        await fs.writeFile(target, content, 'utf8');
      }
      for (const { part, reason } of manifests.absent) {
        ctx.logger.info(`No ${part} manifests: ${reason}`);
      }
      ctx.logger.info(
        `Wrote ${manifests.files.length} platform file(s) of cluster ${manifests.cluster} to ${input.targetDir}`,
      );
      ctx.output('targetDir', input.targetDir);
      ctx.output(
        'files',
        manifests.files.map(file => file.path),
      );
      ctx.output('mode', manifests.mode);
      ctx.output('modeText', clusterModeInWords(manifests.mode));
      ctx.output('absent', manifests.absent);
    },
  });
}

function safeChild(base: string, child: string, message: string): string {
  try {
    return resolveSafeChildPath(base, child);
  } catch {
    throw new InputError(`Invalid input to ${ID}: ${message}`);
  }
}
