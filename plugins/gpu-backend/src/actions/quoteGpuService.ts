import { validateServiceRequest } from '@gpu-platform/backstage-plugin-gpu-common';
import { quoteOutput } from './schemas/quoteOutput';
import { serviceRequestInput } from './schemas/serviceRequestInput';
import { apiOutput, GpuActionsOptions } from './types';

/**
 * `quote-gpu-service`: `POST /quote` (every signed-in caller; the team's quota and budget only for callers who may
 * read them).
 */
export function registerQuoteGpuServiceAction(options: GpuActionsOptions) {
  const { actionsRegistry, platform, authorized } = options;
  actionsRegistry.register({
    name: 'quote-gpu-service',
    title: 'Quote a GPU model service',
    description:
      "Quotes a GPU model service request without creating anything: which sharing tiers and pools fit the model, what each costs per month and per 1,000 tokens, the team's quota and budget left, whether the policy allows it or it needs approval, and the recommended option. The team's quota and budget are shown only to callers who may read them (its members and the platform team); for others teamFiguresWithheld says so and the verdicts weigh the platform's policy only.",
    attributes: { readOnly: true, idempotent: true, destructive: false },
    schema: {
      input: serviceRequestInput,
      output: quoteOutput,
    },
    action: async ({ input, credentials }) => ({
      output: apiOutput(
        await authorized.quotes.quote(
          credentials,
          validateServiceRequest(platform, input),
        ),
      ),
    }),
  });
}
