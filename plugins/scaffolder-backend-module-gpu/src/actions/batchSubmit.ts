import { AuthService, DiscoveryService } from '@backstage/backend-plugin-api';
import { createTemplateAction } from '@backstage/plugin-scaffolder-node';
import { clusterModeInWords } from '@gpu-platform/backstage-plugin-gpu-common';
import {
  BatchJobRequest,
  BatchJobSubmission,
  GpuBackendClient,
} from '@gpu-platform/backstage-plugin-gpu-node';
import { z as zod } from 'zod/v3';
import { examples } from './batchSubmit.examples';
import { parseActionInput } from './parseActionInput';

const ID = 'gpu:batch:submit';

const dns1123 = (z: typeof zod) =>
  z
    .string()
    .max(63)
    .regex(
      /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/,
      "must be a DNS-1123 label: lower-case letters, digits and '-'",
    );

/** The batch job request (what the gpu backend validates against the platform and the team's quota). */
const requestFields = {
  name: (z: typeof zod) =>
    dns1123(z).describe('Name of the Job, e.g. ocr-backlog'),
  team: (z: typeof zod) =>
    z.string().min(1).describe('Team whose GPU quota the Job runs on'),
  namespace: (z: typeof zod) =>
    dns1123(z)
      .optional()
      .describe("One of the team's namespaces; the team's first when omitted"),
  environment: (z: typeof zod) =>
    z
      .string()
      .min(1)
      .default('dev')
      .describe('Environment whose Kueue priority class the Job gets'),
  pool: (z: typeof zod) =>
    z.string().min(1).describe('A spot GPU pool with whole GPUs, e.g. spot-l4'),
  image: (z: typeof zod) =>
    z.string().min(1).describe('Container image of the worker'),
  command: (z: typeof zod) =>
    z.array(z.string()).optional().describe('Entrypoint of the worker'),
  args: (z: typeof zod) =>
    z.array(z.string()).optional().describe('Arguments of the worker'),
  completions: (z: typeof zod) =>
    z
      .number()
      .int()
      .min(1)
      .max(100000)
      .describe(
        'Work items: the pods get JOB_COMPLETION_INDEX 0..completions-1 (e.g. one document each)',
      ),
  parallelism: (z: typeof zod) =>
    z
      .number()
      .int()
      .min(1)
      .max(100000)
      .describe(
        "Pods at once asked for; Kueue lowers it to what the team's quota holds",
      ),
  minParallelism: (z: typeof zod) =>
    z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(
        'Fewest pods at once the Job accepts (Kueue partial admission); 1 when omitted',
      ),
  gpusPerPod: (z: typeof zod) =>
    z
      .number()
      .int()
      .min(1)
      .max(16)
      .default(1)
      .describe('Whole GPUs of the pool per pod'),
  backoffLimit: (z: typeof zod) =>
    z
      .number()
      .int()
      .min(0)
      .max(1000)
      .default(6)
      .describe(
        'Pod failures before the Job fails; spot reclaims (DisruptionTarget) are not counted',
      ),
  env: (z: typeof zod) =>
    z
      .record(z.string())
      .optional()
      .describe('Environment variables of the worker'),
  nonRetriableExitCodes: (z: typeof zod) =>
    z
      .array(z.number().int().min(1).max(255))
      .optional()
      .describe(
        'Exit codes that mean bad input: the Job fails at once instead of retrying; [42] when omitted',
      ),
};

const inputFields = {
  ...requestFields,
  mode: (z: typeof zod) =>
    z
      .enum(['gitops'])
      .optional()
      .describe(
        'gitops: render and record the Job but never apply it (commit the manifests output); omitted: the cluster mode',
      ),
};

/** The request part of the input. */
function toRequest(input: Record<string, unknown>): BatchJobRequest {
  const request: Record<string, unknown> = {};
  for (const key of Object.keys(requestFields)) {
    if (input[key] !== undefined) request[key] = input[key];
  }
  return request as unknown as BatchJobRequest;
}

/**
 * `gpu:batch:submit`: submits a GPU batch job (an indexed Job that Kueue admits from the team's queue on a spot
 * pool) through the gpu backend, on behalf of the user who runs the template. The submission runs inside a task
 * checkpoint, so a retried task does not submit twice.
 *
 * @public
 */
export function createBatchSubmitAction(options: {
  discovery: DiscoveryService;
  auth: AuthService;
}) {
  const client = new GpuBackendClient(options);
  return createTemplateAction({
    id: ID,
    description:
      "Submits a GPU batch job (indexed Job, suspended for Kueue, spot reclaims not counted as failures) to the team's queue on a spot pool; outputs where it runs and how many pods the quota holds at once",
    examples,
    supportsDryRun: true,
    schema: {
      input: inputFields,
      output: {
        batchId: z =>
          z.string().describe('Id of the submission (`dry-run` in a dry run)'),
        name: z => z.string().describe('Name of the Job'),
        namespace: z => z.string().describe('Namespace of the Job'),
        pool: z => z.string().describe('GPU pool the Job runs on'),
        mode: z =>
          z.string().describe('apply, gitops or dry-run: what the backend did'),
        modeText: z =>
          z
            .string()
            .describe(
              "The mode in words for the template's result, e.g. 'rendered only: no cluster is configured'",
            ),
        podsAtOnce: z =>
          z
            .number()
            .describe(
              "Pods the team's quota holds at once: Kueue runs at most this many",
            ),
        manifests: z =>
          z
            .array(z.record(z.unknown()))
            .describe(
              'The Job (and in apply mode the queue objects applied before it)',
            ),
      },
    },
    async handler(ctx) {
      const input = parseActionInput(ID, inputFields, ctx.input);
      const body = {
        request: toRequest(input),
        ...(input.mode ? { mode: input.mode } : {}),
        ...(ctx.isDryRun ? { dryRun: true } : {}),
      };
      const credentials = await ctx.getInitiatorCredentials();
      const submit = () => client.submitBatchJob(body, { credentials });
      const submission = ctx.isDryRun
        ? await submit()
        : ((await ctx.checkpoint({
            key: `${ID}:${input.team}/${input.namespace ?? ''}/${input.name}`,
            fn: async () => (await submit()) as any,
          })) as BatchJobSubmission);
      ctx.logger.info(
        `${ctx.isDryRun ? 'Dry run: would submit' : 'Submitted'} ${
          submission.name
        } to ${submission.namespace} on ${submission.pool} (${
          submission.mode
        }); the quota holds ${submission.podsAtOnce} pod(s) at once`,
      );
      ctx.output('batchId', submission.id);
      ctx.output('name', submission.name);
      ctx.output('namespace', submission.namespace);
      ctx.output('pool', submission.pool);
      ctx.output('mode', submission.mode);
      ctx.output('modeText', clusterModeInWords(submission.mode));
      ctx.output('podsAtOnce', submission.podsAtOnce);
      ctx.output('manifests', submission.manifests as any);
    },
  });
}
