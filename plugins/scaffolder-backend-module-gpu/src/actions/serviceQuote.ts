import { AuthService, DiscoveryService } from '@backstage/backend-plugin-api';
import { createTemplateAction } from '@backstage/plugin-scaffolder-node';
import { formatUsd } from '@gpu-platform/backstage-plugin-gpu-common';
import { GpuBackendClient } from '@gpu-platform/backstage-plugin-gpu-node';
import { examples } from './serviceQuote.examples';
import { serviceRequestInput } from './serviceRequestInput';
import { z as zod } from 'zod/v3';

/**
 * Which replicas an option's `monthlyCost` is for: the quote's `scaling` (the platform's
 * gpu.admission.autoscaledReplicas for an autoscaled request), with the replicas reserved and priced and, under
 * `minimum-plus-burst`, what the burst above them may add.
 */
function scalingOutput(z: typeof zod) {
  return z
    .object({
      basis: z
        .enum(['fixed', 'maximum', 'minimum-plus-burst'])
        .describe(
          'fixed: no autoscaling, replicas priced; maximum: the autoscaling maximum reserved and priced; ' +
            "minimum-plus-burst: the minimum (1 for scale to zero) reserved and priced, the replicas above it run only while the team's quota has room",
        ),
      replicas: z
        .number()
        .describe(
          'Replicas reserved in the team quota and priced in monthlyCost',
        ),
      minReplicas: z
        .number()
        .optional()
        .describe('The autoscaling minimum (absent for fixed)'),
      maxReplicas: z
        .number()
        .optional()
        .describe('The autoscaling maximum (absent for fixed)'),
      burstReplicas: z
        .number()
        .describe(
          'Replicas it may add above those reserved (0 unless minimum-plus-burst)',
        ),
      burstMonthlyCost: z
        .string()
        .optional()
        .describe(
          'What the burst replicas would add in a month, running all the time: not reserved, not budgeted',
        ),
      burstReplicasWithinQuota: z
        .number()
        .optional()
        .describe(
          "How many burst replicas the team's unreserved quota has room for now (minimum-plus-burst only)",
        ),
    })
    .describe(
      'Which replicas monthlyCost is for, as the platform prices an autoscaled service',
    );
}

/**
 * `gpu:service:quote`: asks the gpu backend which tiers and pools fit a request, what each costs and whether the
 * team's quota allows it, and outputs the recommended option (for review steps).
 *
 * @public
 */
export function createServiceQuoteAction(options: {
  discovery: DiscoveryService;
  auth: AuthService;
}) {
  const client = new GpuBackendClient(options);
  return createTemplateAction({
    id: 'gpu:service:quote',
    description:
      'Quotes a GPU model service: feasible tiers and pools, monthly cost, cost per 1,000 tokens, quota left and the recommended option',
    examples,
    supportsDryRun: true,
    schema: {
      input: serviceRequestInput,
      output: {
        recommended: z =>
          z
            .object({
              tier: z.string(),
              pool: z.string(),
              migProfile: z.string().optional(),
              monthlyCost: z.string(),
              policy: z.string(),
              scaling: scalingOutput(z),
            })
            .optional()
            .describe('The recommended option, absent when nothing fits'),
        options: z =>
          z
            .array(
              z.object({
                tier: z.string(),
                pool: z.string(),
                migProfile: z.string().optional(),
                monthlyCost: z.string(),
                policy: z.string(),
                scaling: scalingOutput(z),
              }),
            )
            .describe('Every feasible option, best first'),
        unavailable: z =>
          z
            .array(
              z.object({
                tier: z.string(),
                pool: z.string(),
                reason: z.string(),
              }),
            )
            .describe('Options that do not fit, with the reason'),
      },
    },
    async handler(ctx) {
      const quote = await client.quote(ctx.input, {
        credentials: await ctx.getInitiatorCredentials(),
      });
      const summarise = (option: (typeof quote.options)[number]) => ({
        tier: option.slice.tier,
        pool: option.slice.pool,
        ...(option.slice.migProfile
          ? { migProfile: option.slice.migProfile }
          : {}),
        monthlyCost: formatUsd(option.cost.monthly),
        policy: option.verdict,
        scaling: {
          basis: option.scaling.basis,
          replicas: option.replicas,
          ...(option.scaling.minReplicas !== undefined && {
            minReplicas: option.scaling.minReplicas,
          }),
          ...(option.scaling.maxReplicas !== undefined && {
            maxReplicas: option.scaling.maxReplicas,
          }),
          burstReplicas: option.scaling.burstReplicas,
          ...(option.cost.burstMonthly !== undefined && {
            burstMonthlyCost: formatUsd(option.cost.burstMonthly),
          }),
          ...(option.quota.burstReplicasWithinQuota !== undefined && {
            burstReplicasWithinQuota: option.quota.burstReplicasWithinQuota,
          }),
        },
      });
      const feasible = quote.options.map(summarise);
      ctx.logger.info(
        `${feasible.length} option(s) for ${ctx.input.name}; recommended: ${
          quote.recommended
            ? `${quote.recommended.slice.tier} on ${quote.recommended.slice.pool}`
            : 'none'
        }`,
      );
      if (quote.recommended) {
        ctx.output('recommended', summarise(quote.recommended));
      }
      ctx.output('options', feasible);
      ctx.output(
        'unavailable',
        quote.unavailable.map(u => ({
          tier: u.slice.tier,
          pool: u.slice.pool,
          reason: u.reason,
        })),
      );
    },
  });
}
