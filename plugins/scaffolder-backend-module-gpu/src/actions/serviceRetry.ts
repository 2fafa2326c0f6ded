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
  QuoteOption,
  RetriablePullRequestEnd,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  GpuBackendClient,
  GpuServiceDetail,
} from '@gpu-platform/backstage-plugin-gpu-node';
import { z as zod } from 'zod/v3';
import { describeServiceState } from './describeServiceState';
import { normaliseEntityRef } from './normaliseEntityRef';
import { parseActionInput } from './parseActionInput';
import { examples } from './serviceRetry.examples';
import { writeManifests } from './writeManifests';

const ID = 'gpu:service:retry';

const inputFields = {
  serviceId: (z: typeof zod) =>
    z.string().min(1).optional().describe('Id of the GPU service to retry'),
  entityRef: (z: typeof zod) =>
    z
      .string()
      .optional()
      .describe(
        'Catalog entity whose GPU service to retry, e.g. component:default/summariser: its GitOps service whose pull request was closed without merging, not merged in time or never confirmed (the latest such one), or its failed service',
      ),
  targetDir: (z: typeof zod) =>
    z
      .string()
      .optional()
      .describe(
        "Workspace directory to write the retried GitOps service's manifests into, for its new pull request; nothing is written when absent",
      ),
  layout: (z: typeof zod) =>
    z
      .enum(['files', 'kustomization', 'single'])
      .default('kustomization')
      .describe(
        'As gpu:service:render: files, kustomization (files plus kustomization.yaml) or single (one manifests.yaml)',
      ),
};

/** How the last attempt of a service ended, when a retry may follow it. */
type Ended = RetriablePullRequestEnd | 'failed';

/** What the action knew before the retry (a type, to be kept in a checkpoint). */
type Before = {
  serviceId: string;
  ended: Ended;
  lastStatusReason?: string;
  lastPullRequest?: string;
  quota?: {
    pool: string;
    nominal: number;
    used: number;
    requested: number;
    remaining: number;
    monthlyBudget: string;
    committed: string;
    requestedCost: string;
    budgetRemaining: string;
  };
};

/** How a service's last attempt ended when it can be retried (a failed one, or a GitOps one the backend says may be); undefined otherwise. */
export function retriableEnd(view: GpuServiceView): Ended | undefined {
  return view.status === 'failed' ? 'failed' : view.retriableEnd;
}

const gpus = (n: number) =>
  Number.isInteger(n) ? String(n) : String(Math.round(n * 1000) / 1000);

function endedInWords(before: Before): string {
  const pr = before.lastPullRequest ? ` ${before.lastPullRequest}` : '';
  switch (before.ended) {
    case 'closed':
      return `its pull request${pr} was closed without merging, which rolled its reservation back`;
    case 'expired':
      return `its pull request${pr} was not merged in time: Backstage closed it and rolled its reservation back`;
    case 'unconfirmed':
      return 'the template run that requested it stopped before it recorded its pull request, so its reservation was released';
    default:
      return 'its last apply or teardown failed';
  }
}

/** The markdown a reviewer judges the new pull request by: what is retried, why the last one ended, cost, quota. */
function describeRetry(options: {
  service: GpuServiceView;
  before: Before;
  preview: boolean;
  approvals: string[];
  files?: { targetDir: string; count: number };
}): string {
  const { service, before, files } = options;
  const q = before.quota;
  const lines = [
    `${
      options.preview ? 'Preview of a retry' : 'Retry'
    } of the GPU model service **${service.name}** ` +
      `(team ${service.team}, namespace ${service.namespace}, environment ${service.environment}, mode ${service.mode}, generation ${service.generation}).`,
    '',
    `**Why the last request ended:** ${endedInWords(before)}.${
      before.lastStatusReason ? ` (${before.lastStatusReason})` : ''
    }`,
    '',
    '| | Retried |',
    '|---|---|',
    `| Tier | ${service.placement.tier} |`,
    `| Pool | ${service.placement.pool} |`,
    `| Replicas | ${service.request.replicas} |`,
    `| Model | ${service.request.model} |`,
    `| Cost per month | ${formatUsd(
      Math.round(
        Number(service.monthlyCost.replace(/[^0-9.-]/g, '')) * 1_000_000,
      ),
    )} |`,
    `| Quota (GPU-equivalents) | ${gpus(service.gpuEquivalents)} on ${
      service.placement.pool
    } |`,
    '',
  ];
  if (q) {
    lines.push(
      `**Quota:** the team had ${gpus(q.used)} of its ${gpus(
        q.nominal,
      )} GPU-equivalents on ${q.pool} reserved; this retry ${
        options.preview ? 'would hold' : 'holds'
      } ${gpus(q.requested)} (${gpus(q.remaining)} left).`,
      '',
      `**Budget:** ${q.committed} of the team's ${q.monthlyBudget} a month committed; this retry adds ${q.requestedCost} (${q.budgetRemaining} left).`,
      '',
    );
  }
  if (options.preview) {
    lines.push(
      options.approvals.length
        ? `**Approvals:** a retry would be refused, it would need the platform team's approval: ${options.approvals.join(
            '; ',
          )}.`
        : "**Approvals:** none expected: within the team's quota, budget and policy.",
    );
  } else {
    lines.push(
      "**Approvals:** none needed: within the team's quota, budget and policy; Backstage holds the reservation again " +
        'until this request is merged, and rolls it back if it is closed unmerged or not merged in time.',
    );
  }
  if (files) {
    lines.push(
      '',
      `${files.count} files under ${files.targetDir}/, rendered by Backstage. Merging lets the GitOps controller apply the service.`,
    );
  }
  return lines.join('\n');
}

/** Runs the backend's retry; its refusal (409, 400) is rethrown as such, saying it was refused. */
async function refused<T>(retry: () => Promise<T>): Promise<T> {
  try {
    return await retry();
  } catch (error) {
    // Nothing was reserved and nothing is written: the template's publish steps do not run. The backend's words,
    // without the HTTP response the client's error names as its cause.
    const reason = (error as Error).message.replace(/; caused by .*$/s, '');
    if (error instanceof ConflictError) {
      throw new ConflictError(`The retry was refused: ${reason}`);
    }
    if (error instanceof InputError) {
      throw new InputError(`The retry was refused: ${reason}`);
    }
    throw error;
  }
}

/**
 * `gpu:service:retry`: retries a GPU model service through the gpu backend (`POST /services/{id}/retry`) on behalf of
 * the user who runs the template. For a GitOps service whose pull request was closed without merging, not merged in
 * time or never confirmed, the backend weighs it again against the team's quota, budget and policy (a refusal fails
 * the step with the reason, and nothing is written to the workspace), reserves it again and renders it again; the
 * action writes its manifests into the workspace for a new pull request and outputs a markdown `description` a
 * reviewer can judge: what is retried, why the last request ended, the monthly cost, quota and budget. End the
 * template with `gpu:service:confirm` and the new request's address, within `gpu.services.confirmWithin`. A failed
 * service is retried as the backend retries it (its apply or teardown completed), with nothing written. Idempotent:
 * the retry runs inside a task checkpoint. In a dry run nothing is retried: the backend previews the service as a
 * creation would be weighed.
 *
 * @public
 */
export function createServiceRetryAction(options: {
  discovery: DiscoveryService;
  auth: AuthService;
}) {
  const client = new GpuBackendClient(options);

  async function getService(
    id: string,
    credentials: BackstageCredentials,
  ): Promise<GpuServiceDetail> {
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

  /** The entity's service to retry: the latest that can be retried; none while one of its services is live. */
  async function findByEntity(
    entityRef: string,
    credentials: BackstageCredentials,
  ): Promise<string> {
    const { items } = await client.listServices({ entityRef }, { credentials });
    const live = items.filter(
      s => !['deleted', 'deleting', 'rejected', 'failed'].includes(s.status),
    );
    if (live.length > 0) {
      throw new InputError(
        `Invalid input to ${ID}: entityRef: ${entityRef}'s GPU service ${live
          .map(s => `${s.name} (${s.id}) is ${s.status}`)
          .join(', ')}; there is nothing to retry`,
      );
    }
    const candidates = items
      .filter(s => retriableEnd(s) !== undefined)
      .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
    if (candidates.length === 0) {
      throw new InputError(
        `Invalid input to ${ID}: entityRef: no GPU service of ${entityRef} can be retried (none failed, nor a GitOps service whose pull request was closed without merging, not merged in time or never confirmed)`,
      );
    }
    return candidates[0].id;
  }

  async function quotaOf(
    service: GpuServiceView,
    credentials: BackstageCredentials,
  ): Promise<Before['quota']> {
    const quote = await client.quote(service.request, { credentials });
    const option: QuoteOption | undefined =
      quote.options.find(
        o =>
          o.slice.pool === service.placement.pool &&
          o.slice.tier === service.placement.tier,
      ) ?? quote.recommended;
    if (!option) return undefined;
    return {
      pool: option.quota.pool,
      nominal: option.quota.nominal,
      used: option.quota.used,
      requested: option.quota.requested,
      remaining: option.quota.remaining,
      monthlyBudget: formatUsd(option.budget.monthlyBudget),
      committed: formatUsd(option.budget.committed),
      requestedCost: formatUsd(option.budget.requested),
      budgetRemaining: formatUsd(option.budget.remaining),
    };
  }

  return createTemplateAction({
    id: ID,
    description:
      'Retries a GPU model service: a GitOps service whose pull request was closed without merging, not merged in ' +
      "time or never confirmed is weighed again against the team's quota, budget and policy, reserved again and " +
      'rendered again, its manifests written into the workspace for a new pull request with a description giving ' +
      'why the last one ended, the cost and the quota; a failed service is applied or torn down again',
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
              "The service's spec generation after the retry (one more per retry of a GitOps service; e.g. for a branch name)",
            ),
        status: z =>
          z
            .string()
            .describe(
              'The status after the retry: approved (GitOps: reserved again, publish the manifests and confirm the new request), starting, deleted...',
            ),
        statusText: z => z.string().describe('The status and mode in words'),
        statusReason: z =>
          z.string().optional().describe('Why the service is in its status'),
        mode: z => z.string().describe('apply, gitops or dry-run'),
        ended: z =>
          z
            .enum(['closed', 'expired', 'unconfirmed', 'failed'])
            .describe(
              'How the last attempt ended: its pull request closed unmerged, not merged in time, never confirmed, or the service failed',
            ),
        lastPullRequest: z =>
          z
            .string()
            .optional()
            .describe('The address of the pull request the retry replaces'),
        confirmBy: z =>
          z
            .string()
            .optional()
            .describe(
              'GitOps: when the new pull request must be confirmed by (gpu:service:confirm) before the retry is rolled back',
            ),
        tier: z => z.string().describe('GPU sharing tier'),
        pool: z => z.string().describe('GPU pool'),
        gpuEquivalents: z =>
          z.number().describe('GPU-equivalents reserved by the retry'),
        monthlyCost: z => z.string().describe('Projected monthly cost, USD'),
        description: z =>
          z
            .string()
            .describe(
              'Markdown for the pull request: what is retried, why the last request ended, monthly cost, quota and budget',
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
      },
    },
    async handler(ctx) {
      const input = parseActionInput(ID, inputFields, ctx.input);
      if (!input.serviceId === !input.entityRef) {
        throw new InputError(
          `Invalid input to ${ID}: give exactly one of serviceId or entityRef`,
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

      // Kept in the task's state: a retried task retries the service it chose, described as it was before.
      const readBefore = async (): Promise<Before> => {
        const id =
          input.serviceId ?? (await findByEntity(entityRef!, credentials));
        const current = await getService(id, credentials);
        const ended = retriableEnd(current);
        if (!ended) {
          // The backend decides: it refuses with its reason (a service retried meanwhile by someone else is not
          // retried twice: it is live by now).
          await refused(() => client.retryService(current.id, { credentials }));
          throw new ConflictError(
            `${current.name} (${current.id}) was ${current.status} (${current.reason}) and has been retried meanwhile; run the template again to publish it`,
          );
        }
        if (directory && current.mode !== 'gitops') {
          throw new InputError(
            `${current.name} is in ${current.mode} mode: its manifests are not published to a repository; retry it without targetDir`,
          );
        }
        return {
          serviceId: current.id,
          ended,
          ...(current.statusReason
            ? { lastStatusReason: current.statusReason }
            : {}),
          ...(current.pullRequest
            ? { lastPullRequest: current.pullRequest.url }
            : {}),
          ...(current.mode === 'gitops'
            ? { quota: await quotaOf(current, credentials) }
            : {}),
        };
      };
      const before = ctx.isDryRun
        ? await readBefore()
        : await ctx.checkpoint({ key: `${ID}:before`, fn: readBefore });

      const output = async (values: {
        service: GpuServiceView;
        manifests: GpuServiceDetail['manifests'];
        preview: boolean;
        approvals: string[];
      }) => {
        const { service } = values;
        const files = directory
          ? await writeManifests(directory, values.manifests, input.layout)
          : [];
        ctx.output('serviceId', service.id);
        ctx.output('name', service.name);
        ctx.output('generation', service.generation);
        ctx.output('status', service.status);
        ctx.output(
          'statusText',
          describeServiceState(service.status, service.mode),
        );
        if (service.statusReason) {
          ctx.output('statusReason', service.statusReason);
        }
        ctx.output('mode', service.mode);
        ctx.output('ended', before.ended);
        if (before.lastPullRequest) {
          ctx.output('lastPullRequest', before.lastPullRequest);
        }
        if (service.confirmBy) ctx.output('confirmBy', service.confirmBy);
        ctx.output('tier', service.placement.tier);
        ctx.output('pool', service.placement.pool);
        ctx.output('gpuEquivalents', service.gpuEquivalents);
        ctx.output('monthlyCost', service.monthlyCost);
        ctx.output(
          'description',
          describeRetry({
            service,
            before,
            preview: values.preview,
            approvals: values.approvals,
            ...(input.targetDir && files.length
              ? { files: { targetDir: input.targetDir, count: files.length } }
              : {}),
          }),
        );
        if (input.targetDir) ctx.output('targetDir', input.targetDir);
        ctx.output('files', files);
      };

      if (ctx.isDryRun) {
        const current = await getService(before.serviceId, credentials);
        if (before.ended === 'failed') {
          ctx.logger.info(
            `Dry run: would retry the failed service ${current.name} (${current.id})`,
          );
          await output({
            service: current,
            manifests: [],
            preview: true,
            approvals: [],
          });
          return;
        }
        // Weighed by the backend as a creation of the same request would be; nothing is reserved.
        const preview = await client.previewService(
          {
            request: current.request,
            entityRef: current.entityRef,
            mode: 'gitops',
          },
          { credentials },
        );
        ctx.logger.info(
          `Dry run: would retry ${current.name} (${current.id}) on ${preview.placement.tier}/${preview.placement.pool}, ${preview.monthlyCost} a month`,
        );
        await output({
          service: {
            ...preview,
            id: current.id,
            generation: current.generation + 1,
            status: current.status,
            reason: current.reason,
            statusReason: current.statusReason,
          },
          manifests: preview.manifests,
          preview: true,
          approvals:
            preview.status === 'pending-approval' && preview.statusReason
              ? [preview.statusReason.replace(/^Would wait for approval: /, '')]
              : [],
        });
        return;
      }

      const retried = (await refused(() =>
        ctx.checkpoint({
          key: `${ID}:${before.serviceId}`,
          fn: async () =>
            (await client.retryService(before.serviceId, {
              credentials,
            })) as any,
        }),
      )) as GpuServiceView;
      if (retried.status === 'failed') {
        throw new Error(
          `Retrying ${retried.name} failed again: ${retried.statusReason}`,
        );
      }
      const manifests =
        retried.mode === 'gitops' && directory
          ? (await getService(retried.id, credentials)).manifests
          : [];
      ctx.logger.info(
        `Retried ${retried.name} (${retried.id}) after ${before.ended}: ${retried.placement.tier}/${retried.placement.pool}, ${retried.monthlyCost} a month; ${retried.status}`,
      );
      await output({
        service: retried,
        manifests,
        preview: false,
        approvals: [],
      });
    },
  });
}
