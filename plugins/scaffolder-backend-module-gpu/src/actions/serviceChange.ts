import {
  AuthService,
  BackstageCredentials,
  DiscoveryService,
  resolveSafeChildPath,
} from '@backstage/backend-plugin-api';
import { ConflictError, InputError, NotFoundError } from '@backstage/errors';
import { createTemplateAction } from '@backstage/plugin-scaffolder-node';
import {
  formatUsd,
  GpuServiceView,
  ServiceRequest,
  ServiceStatus,
  UpdateServiceBody,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  GpuBackendClient,
  GpuServiceDetail,
} from '@gpu-platform/backstage-plugin-gpu-node';
import { promises as fs } from 'node:fs';
import { dirname } from 'node:path';
import { z as zod } from 'zod/v3';
import { describeServiceState } from './describeServiceState';
import { normaliseEntityRef } from './normaliseEntityRef';
import { parseActionInput } from './parseActionInput';
import { examples } from './serviceChange.examples';
import { manifestFileNames, writeManifests } from './writeManifests';

const ID = 'gpu:service:change';

const inputFields = {
  serviceId: (z: typeof zod) =>
    z.string().min(1).optional().describe('Id of the GPU service to change'),
  entityRef: (z: typeof zod) =>
    z
      .string()
      .optional()
      .describe(
        'Catalog entity whose GPU service to change, e.g. component:default/summariser (exactly one live service must belong to it)',
      ),
  tier: (z: typeof zod) =>
    z
      .enum(['dedicated', 'mig', 'mps', 'time-sliced'])
      .optional()
      .describe('New GPU sharing tier'),
  pool: (z: typeof zod) =>
    z.string().min(1).optional().describe('New GPU pool'),
  replicas: (z: typeof zod) =>
    z.number().int().min(1).max(64).optional().describe('New replica count'),
  model: (z: typeof zod) =>
    z
      .string()
      .min(1)
      .optional()
      .describe("New model, from the platform's model catalogue"),
  targetDir: (z: typeof zod) =>
    z
      .string()
      .optional()
      .describe(
        "Workspace directory to write the changed service's manifests into, for a pull request (GitOps services only); nothing is written when absent",
      ),
  layout: (z: typeof zod) =>
    z
      .enum(['files', 'kustomization', 'single'])
      .default('kustomization')
      .describe(
        'As gpu:service:render: files, kustomization (files plus kustomization.yaml) or single (one manifests.yaml)',
      ),
  provisional: (z: typeof zod) =>
    z
      .boolean()
      .default(false)
      .describe(
        'GitOps: the change is pending until its pull (merge) request is merged. The backend keeps the spec and ' +
          'reservation the service had and restores them when the request is closed unmerged, not merged in time, ' +
          'or not recorded within gpu.services.confirmWithin: end the template with gpu:service:confirm and the ' +
          "request's address (pullRequestUrl). Refused for a service that is not in GitOps mode",
      ),
  removedFilesDir: (z: typeof zod) =>
    z
      .string()
      .optional()
      .describe(
        'Workspace directory where an empty file is written at the path of each of removedFiles (relative to it), ' +
          "for a forge's action that deletes the files of a directory it is given, such as gitlab:repo:push with " +
          'commitAction delete (publish:gitlab:merge-request has no per-file deletions); nothing is written when ' +
          'nothing is removed',
      ),
  whenPendingApproval: (z: typeof zod) =>
    z
      .enum(['continue', 'fail'])
      .default('continue')
      .describe(
        'A change outside policy waits for an approver and the service stays as it is until then. continue ' +
          '(default): the step succeeds with status pending-approval and writes no manifests; fail: the step fails ' +
          '(the approval stays requested; run the template again once it is decided to publish the approved manifests)',
      ),
};

const figuresSchema = (z: typeof zod) =>
  z.object({
    tier: z.string(),
    pool: z.string(),
    replicas: z.number(),
    model: z.string(),
    gpuEquivalents: z.number(),
    monthlyCost: z.string(),
  });

/** What a service runs and costs: the columns of the description's table (a type, to be kept in a checkpoint). */
type Figures = {
  tier: string;
  pool: string;
  replicas: number;
  model: string;
  gpuEquivalents: number;
  monthlyCost: string;
};

const LIVE = (s: GpuServiceView) =>
  s.status !== 'deleted' && s.status !== 'deleting' && s.status !== 'rejected';

function figuresOf(view: GpuServiceView): Figures {
  return {
    tier: view.placement.tier,
    pool: view.placement.pool,
    replicas: view.request.replicas,
    model: view.request.model,
    gpuEquivalents: view.gpuEquivalents,
    monthlyCost: view.monthlyCost,
  };
}

/** `$1,175.00` (or `1175.00`) as micro-dollars. */
function microsOf(cost: string): number {
  return Math.round(Number(cost.replace(/[^0-9.-]/g, '')) * 1_000_000);
}

function usd(cost: string): string {
  return formatUsd(microsOf(cost));
}

function signed(delta: number, format: (n: number) => string): string {
  if (delta === 0) return 'no change';
  return delta > 0 ? `+${format(delta)}` : `-${format(-delta)}`;
}

const gpus = (n: number) =>
  Number.isInteger(n) ? String(n) : String(Math.round(n * 1000) / 1000);

/** The markdown a reviewer judges the pull request by: what changes, the cost and quota before and after, approvals. */
function describeChange(options: {
  service: GpuServiceView;
  before: Figures;
  after: Figures;
  status: string;
  approvals: string[];
  preview: boolean;
  files?: { targetDir: string; count: number };
}): string {
  const { service, before, after, approvals, files } = options;
  const cell = (a: string | number, b: string | number) =>
    a === b ? String(b) : `**${b}**`;
  const costDelta = microsOf(after.monthlyCost) - microsOf(before.monthlyCost);
  const quota =
    before.pool === after.pool
      ? `${gpus(before.gpuEquivalents)} on ${before.pool} → ${gpus(
          after.gpuEquivalents,
        )} on ${after.pool} (${signed(
          after.gpuEquivalents - before.gpuEquivalents,
          gpus,
        )})`
      : `${gpus(before.gpuEquivalents)} on ${before.pool} released, ${gpus(
          after.gpuEquivalents,
        )} on ${after.pool} held`;
  const lines = [
    `${
      options.preview ? 'Preview of a change' : 'Change'
    } of the GPU model service **${service.name}** ` +
      `(team ${service.team}, namespace ${service.namespace}, environment ${service.environment}, mode ${service.mode}).`,
    '',
    '| | Before | After |',
    '|---|---|---|',
    `| Tier | ${before.tier} | ${cell(before.tier, after.tier)} |`,
    `| Pool | ${before.pool} | ${cell(before.pool, after.pool)} |`,
    `| Replicas | ${before.replicas} | ${cell(
      before.replicas,
      after.replicas,
    )} |`,
    `| Model | ${before.model} | ${cell(before.model, after.model)} |`,
    `| Cost per month | ${usd(before.monthlyCost)} | ${cell(
      usd(before.monthlyCost),
      usd(after.monthlyCost),
    )} (${signed(costDelta, formatUsd)}) |`,
    `| Quota (GPU-equivalents) | ${gpus(before.gpuEquivalents)} on ${
      before.pool
    } | ${gpus(after.gpuEquivalents)} on ${after.pool} |`,
    '',
    `**Quota:** ${quota}.`,
    '',
  ];
  if (options.status === 'pending-approval') {
    lines.push(
      `**Approvals:** the platform team must approve this change before its manifests are published: ${approvals.join(
        '; ',
      )}. Until then the service keeps its current spec and reservation.`,
    );
  } else if (options.preview) {
    lines.push(
      approvals.length
        ? `**Approvals:** would need the platform team's approval: ${approvals.join(
            '; ',
          )}. (Weighed as admission weighs the change, without the service's current reservation.)`
        : "**Approvals:** none expected: within the team's quota, budget and policy.",
    );
  } else {
    lines.push(
      "**Approvals:** none needed: within the team's quota, budget and policy; Backstage holds the new reservation.",
    );
  }
  if (files) {
    lines.push(
      '',
      `${files.count} files under ${files.targetDir}/, rendered by Backstage. Merging lets the GitOps controller apply the change.`,
    );
  }
  return lines.join('\n');
}

/**
 * `gpu:service:change`: changes a GPU model service's tier, pool, replicas or model through the gpu backend
 * (`PATCH /services/{id}`: re-quoted, re-reserved, rendered again) on behalf of the user who runs the template, and,
 * for a GitOps service, writes its changed manifests into the workspace for a pull request, with a markdown
 * `description` a reviewer can judge: what changes, the monthly cost and the quota before and after, and the
 * approvals it needs. Idempotent: the change runs inside a task checkpoint, so a retried task never changes twice.
 * In a dry run nothing changes: the backend weighs the change as admission would (`PATCH` with `dryRun`, without the
 * service's own current reservation) and renders it, as a preview. With `provisional` (GitOps), the change is pending
 * until its pull request is merged: the template's `gpu:service:confirm` step records the request, and the backend
 * rolls the change back if it is closed unmerged or not merged in time.
 *
 * @public
 */
export function createServiceChangeAction(options: {
  discovery: DiscoveryService;
  auth: AuthService;
}) {
  const client = new GpuBackendClient(options);

  async function findService(
    input: { serviceId?: string; entityRef?: string },
    credentials: BackstageCredentials,
  ): Promise<GpuServiceDetail> {
    let id = input.serviceId;
    if (!id) {
      const { items } = await client.listServices(
        { entityRef: input.entityRef },
        { credentials },
      );
      const live = items.filter(LIVE);
      if (live.length !== 1) {
        throw new InputError(
          `Invalid input to ${ID}: entityRef: ${
            live.length === 0
              ? `no live GPU service belongs to ${input.entityRef}`
              : `${live.length} live GPU services belong to ${
                  input.entityRef
                } (${live.map(s => s.id).join(', ')}); give serviceId`
          }`,
        );
      }
      id = live[0].id;
    }
    try {
      return await client.getService(id, { credentials });
    } catch (error) {
      if (error instanceof NotFoundError) {
        throw new InputError(
          `Invalid input to ${ID}: serviceId: no GPU service with id ${id}`,
        );
      }
      throw error;
    }
  }

  return createTemplateAction({
    id: ID,
    description:
      "Changes a GPU model service's tier, pool, replicas or model (re-quoted, re-reserved, rendered again), writes " +
      'the changed manifests of a GitOps service into the workspace, and outputs a pull request description with ' +
      'the cost and quota before and after and the approvals needed; in a dry run, a preview',
    examples,
    supportsDryRun: true,
    schema: {
      input: inputFields,
      output: {
        serviceId: z => z.string().describe('Id of the GPU service'),
        name: z => z.string().describe('Name of the GPU service'),
        generation: z =>
          z
            .number()
            .describe(
              "The service's spec generation after the change (one more per accepted change; e.g. for a branch name)",
            ),
        status: z =>
          z
            .string()
            .describe(
              'The status after the change: approved (GitOps: rendered, publish the manifests), applying, pending-approval (the change waits for an approver)...',
            ),
        statusText: z => z.string().describe('The status and mode in words'),
        statusReason: z =>
          z.string().optional().describe('Why the service is in its status'),
        mode: z => z.string().describe('apply, gitops or dry-run'),
        before: z =>
          figuresSchema(z).describe(
            'Tier, pool, replicas, model, GPU-equivalents reserved and monthly cost before the change',
          ),
        after: z =>
          figuresSchema(z).describe(
            'The same after the change (for a change waiting for approval or a dry run: as quoted)',
          ),
        approvals: z =>
          z
            .array(z.string())
            .describe(
              'Why the change needs an approver (empty when it does not)',
            ),
        description: z =>
          z
            .string()
            .describe(
              'Markdown for the pull request: what changes, monthly cost and quota before and after, approvals',
            ),
        targetDir: z =>
          z
            .string()
            .optional()
            .describe('Workspace directory holding the manifests'),
        files: z =>
          z
            .array(z.string())
            .describe(
              'Written files, relative to targetDir, in apply order (empty when nothing was written)',
            ),
        removedFiles: z =>
          z
            .array(z.string())
            .describe(
              "Files, relative to targetDir, the service's directory held before the change that its new spec no longer renders (for example the model-cache claim of one replica once several share a ReadWriteMany one): for a pull request's deletions, such as publish:github:pull-request's filesToDelete (empty when nothing was written)",
            ),
      },
    },
    async handler(ctx) {
      const input = parseActionInput(ID, inputFields, ctx.input);
      if (!input.serviceId === !input.entityRef) {
        throw new InputError(
          `Invalid input to ${ID}: give exactly one of serviceId or entityRef`,
        );
      }
      const change: UpdateServiceBody = {
        ...(input.tier !== undefined ? { tier: input.tier } : {}),
        ...(input.pool !== undefined ? { pool: input.pool } : {}),
        ...(input.replicas !== undefined ? { replicas: input.replicas } : {}),
        ...(input.model !== undefined ? { model: input.model } : {}),
      };
      if (Object.keys(change).length === 0) {
        throw new InputError(
          `Invalid input to ${ID}: give at least one of tier, pool, replicas or model`,
        );
      }
      let directory: string | undefined;
      if (input.targetDir !== undefined) {
        try {
          directory = resolveSafeChildPath(ctx.workspacePath, input.targetDir);
        } catch {
          throw new InputError(
            `Invalid input to ${ID}: targetDir: '${input.targetDir}' is outside the workspace`,
          );
        }
      }
      const entityRef =
        input.entityRef && normaliseEntityRef(ID, input.entityRef);
      const credentials = await ctx.getInitiatorCredentials();

      const current = await findService(
        { serviceId: input.serviceId, entityRef },
        credentials,
      );
      if (directory && current.mode === 'apply') {
        throw new InputError(
          `${current.name} is applied to the cluster by Backstage (mode apply): its manifests are not published to a repository; change it without targetDir`,
        );
      }
      // Kept in the task's state: a retried task describes the change from the spec it changed, not from its result.
      const before: Figures = ctx.isDryRun
        ? figuresOf(current)
        : await ctx.checkpoint({
            key: `${ID}:${current.id}:before`,
            fn: async () => figuresOf(current),
          });

      const writeFiles = async (
        manifests: GpuServiceDetail['manifests'],
      ): Promise<string[]> => {
        if (!directory) return [];
        return writeManifests(directory, manifests, input.layout);
      };
      // The files of the spec before the change, kept with `before`: what the new files no longer hold is removed.
      const readFilesBefore = () =>
        manifestFileNames(current.manifests, input.layout);
      let filesBefore: string[] = [];
      if (directory) {
        filesBefore = ctx.isDryRun
          ? readFilesBefore()
          : await ctx.checkpoint({
              key: `${ID}:${current.id}:files-before`,
              fn: readFilesBefore,
            });
      }
      let removedDirectory: string | undefined;
      if (input.removedFilesDir !== undefined) {
        try {
          removedDirectory = resolveSafeChildPath(
            ctx.workspacePath,
            input.removedFilesDir,
          );
        } catch {
          throw new InputError(
            `Invalid input to ${ID}: removedFilesDir: '${input.removedFilesDir}' is outside the workspace`,
          );
        }
      }
      const outputAll = async (values: {
        service: GpuServiceView;
        status: ServiceStatus;
        statusReason?: string;
        after: Figures;
        approvals: string[];
        preview: boolean;
        files: string[];
      }) => {
        ctx.output('serviceId', values.service.id);
        ctx.output('name', values.service.name);
        ctx.output('generation', values.service.generation);
        ctx.output('status', values.status);
        ctx.output(
          'statusText',
          describeServiceState(values.status, values.service.mode),
        );
        if (values.statusReason) {
          ctx.output('statusReason', values.statusReason);
        }
        ctx.output('mode', values.service.mode);
        ctx.output('before', before);
        ctx.output('after', values.after);
        ctx.output('approvals', values.approvals);
        ctx.output(
          'description',
          describeChange({
            service: values.service,
            before,
            after: values.after,
            status: values.status,
            approvals: values.approvals,
            preview: values.preview,
            ...(input.targetDir && values.files.length
              ? {
                  files: {
                    targetDir: input.targetDir,
                    count: values.files.length,
                  },
                }
              : {}),
          }),
        );
        if (input.targetDir) ctx.output('targetDir', input.targetDir);
        ctx.output('files', values.files);
        const removed = values.files.length
          ? filesBefore.filter(f => !values.files.includes(f))
          : [];
        if (removedDirectory) {
          for (const file of removed) {
            const path = resolveSafeChildPath(removedDirectory, file);
            await fs.mkdir(dirname(path), { recursive: true });
            await fs.writeFile(path, '');
          }
        }
        ctx.output('removedFiles', removed);
      };

      const changedRequest: ServiceRequest = { ...current.request, ...change };
      if (
        (
          Object.keys(change) as (keyof Figures & keyof UpdateServiceBody)[]
        ).every(key => change[key] === before[key])
      ) {
        throw new InputError(
          `Invalid input to ${ID}: nothing to change: ${
            current.name
          } already runs ${Object.entries(change)
            .map(([key, value]) => `${key} ${value}`)
            .join(', ')}`,
        );
      }

      if (ctx.isDryRun) {
        // Weighed by the backend as the change itself is (PATCH with dryRun): admission without the service's own
        // current reservation; nothing is changed or held.
        const preview = await client.previewServiceChange(current.id, change, {
          credentials,
        });
        const after = figuresOf(preview);
        const files = await writeFiles(preview.manifests);
        ctx.logger.info(
          `Dry run: would change ${current.name} (${current.id}) to ${after.tier}/${after.pool}, ${after.replicas} replica(s), ${after.monthlyCost} a month`,
        );
        await outputAll({
          service: current,
          status: current.status,
          after,
          approvals:
            preview.approval?.state === 'pending'
              ? preview.approval.reasons.map(r => r.message)
              : [],
          preview: true,
          files,
        });
        return;
      }

      const changed = (await ctx.checkpoint({
        key: `${ID}:${current.id}`,
        fn: async () =>
          (await client.updateService(
            current.id,
            input.provisional ? { ...change, provisional: true } : change,
            { credentials },
          )) as any,
      })) as GpuServiceView;

      const pending =
        changed.approval?.kind === 'change' &&
        changed.approval.state === 'pending';
      if (pending) {
        const approvals = changed.approval!.reasons.map(r => r.message);
        if (input.whenPendingApproval === 'fail') {
          throw new ConflictError(
            `The change of ${
              current.name
            } needs approval by the platform team (${approvals.join(
              '; ',
            )}); the service keeps its current spec until it is decided. Run the template again once it is approved to publish its manifests`,
          );
        }
        const quote = await client.quote(changedRequest, { credentials });
        const option = quote.recommended;
        const after: Figures = option
          ? {
              tier: option.slice.tier,
              pool: option.slice.pool,
              replicas: changedRequest.replicas,
              model: changedRequest.model,
              gpuEquivalents: option.gpuEquivalents,
              monthlyCost: formatUsd(option.cost.monthly),
            }
          : before;
        ctx.logger.warn(
          `The change of ${
            current.name
          } waits for approval by the platform team: ${approvals.join('; ')}`,
        );
        await outputAll({
          service: changed,
          status: 'pending-approval',
          statusReason: `The change waits for approval: ${approvals.join(
            '; ',
          )}`,
          after,
          approvals,
          preview: false,
          files: [],
        });
        return;
      }
      if (changed.status === 'failed') {
        throw new Error(
          `Changing ${changed.name} failed: ${changed.statusReason}; retry the service or change it again`,
        );
      }

      let files: string[] = [];
      if (directory) {
        const detail = await client.getService(changed.id, { credentials });
        files = await writeFiles(detail.manifests);
      }
      const after = figuresOf(changed);
      ctx.logger.info(
        `Changed ${changed.name} (${changed.id}): ${after.tier}/${after.pool}, ${after.replicas} replica(s), ${after.monthlyCost} a month (was ${before.monthlyCost}); ${changed.status}`,
      );
      await outputAll({
        service: changed,
        status: changed.status,
        ...(changed.statusReason ? { statusReason: changed.statusReason } : {}),
        after,
        approvals: [],
        preview: false,
        files,
      });
    },
  });
}
