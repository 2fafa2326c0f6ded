import { makeFieldSchema } from '@backstage/plugin-scaffolder-react';
import { SharingTier } from '@internal/backstage-plugin-gpu-common';

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
}

/** The field's return value as JSON schema (for the template editor) and its props type. */
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
    }),
});

/** Props of the tier picker field. */
export type TierPickerProps = typeof tierPickerFieldSchema.TProps;
