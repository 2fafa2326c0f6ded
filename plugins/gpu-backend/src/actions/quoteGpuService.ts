import { validateServiceRequest } from '@gpu-platform/backstage-plugin-gpu-common';
import { quoteOutput } from './schemas/quoteOutput';
import { serviceRequestInput } from './schemas/serviceRequestInput';
import { apiOutput, GpuActionsOptions } from './types';

/** `quote-gpu-service`: `POST /quote` (every signed-in caller). */
export function registerQuoteGpuServiceAction(options: GpuActionsOptions) {
  const { actionsRegistry, platform, quotes } = options;
  actionsRegistry.register({
    name: 'quote-gpu-service',
    title: 'Quote a GPU model service',
    description:
      "Quotes a GPU model service request without creating anything: which sharing tiers and pools fit the model, what each costs per month and per 1,000 tokens, the team's quota and budget left, whether the policy allows it or it needs approval, and the recommended option.",
    attributes: { readOnly: true, idempotent: true, destructive: false },
    schema: {
      input: serviceRequestInput,
      output: quoteOutput,
    },
    action: async ({ input }) => ({
      output: apiOutput(
        await quotes.quote(validateServiceRequest(platform, input)),
      ),
    }),
  });
}
