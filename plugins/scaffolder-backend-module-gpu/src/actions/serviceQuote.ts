import { AuthService, DiscoveryService } from '@backstage/backend-plugin-api';
import { createTemplateAction } from '@backstage/plugin-scaffolder-node';
import { formatUsd } from '@gpu-platform/backstage-plugin-gpu-common';
import { GpuBackendClient } from '@gpu-platform/backstage-plugin-gpu-node';
import { examples } from './serviceQuote.examples';
import { serviceRequestInput } from './serviceRequestInput';

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
