import { makeFieldSchema } from '@backstage/plugin-scaffolder-react';
import { SharingTier } from '@gpu-platform/backstage-plugin-gpu-common';

/**
 * What the tier picker writes into the form: the tier and pool the gpu backend will place the service on, and the
 * slice of that pool each replica gets (the option the backend's create takes for this tier and pool).
 *
 * @public
 */
export interface TierPickerValue {
  tier: SharingTier;
  pool: string;
  /** The slice each replica gets, e.g. `a 3g.40gb MIG slice of an A100-80GB` or `1 x L4`. */
  slice: string;
  /** MIG profile of the slice, for the `mig` tier. */
  migProfile?: string;
  /** Whole GPUs per replica for `dedicated`; 1 otherwise. */
  gpusPerReplica: number;
  /** The policy lets this through only after an approver accepts it (over quota, over budget, above the GPU limit). */
  needsApproval: boolean;
  /**
   * `user` when the user picked the row (kept across steps and new quotes), `recommendation` while the picker
   * follows the quote's recommendation.
   */
  chosenBy: 'user' | 'recommendation';
  /** The row was the recommendation when it was chosen (the picker says when it no longer is). */
  recommendedWhenChosen: boolean;
  /** For the review step: the tier, pool and slice in words, e.g. `Dedicated on l4-ondemand: 1 x L4 per replica`. */
  summary: string;
  /** For the review step: the monthly cost of every replica, per replica, and the month it counts. */
  cost: string;
  /** For the review step: whether an approver must accept the service first, and why. */
  approval: string;
}

/**
 * The field's return value as JSON schema (for the template editor) and its props type.
 *
 * @public
 */
export const tierPickerFieldSchema = makeFieldSchema({
  output: z =>
    z.object({
      tier: z
        .enum(['dedicated', 'mig', 'mps', 'time-sliced'])
        .describe('GPU sharing tier'),
      pool: z.string().describe('GPU pool'),
      slice: z.string().describe('The slice each replica gets'),
      migProfile: z.string().optional().describe('MIG profile, for mig'),
      gpusPerReplica: z
        .number()
        .int()
        .min(1)
        .describe('Whole GPUs per replica for dedicated; 1 otherwise'),
      needsApproval: z
        .boolean()
        .describe('The service waits for an approver before it is deployed'),
      chosenBy: z
        .enum(['user', 'recommendation'])
        .describe('Picked by the user, or following the recommendation'),
      recommendedWhenChosen: z
        .boolean()
        .describe('The choice was the recommendation when it was made'),
      summary: z.string().describe('Tier, pool and slice in words'),
      cost: z.string().describe('Monthly cost in words'),
      approval: z.string().describe('Whether approval is needed, and why'),
    }),
});

/**
 * Props of the tier picker field.
 *
 * @public
 */
export type TierPickerProps = typeof tierPickerFieldSchema.TProps;
