import { z as zod } from 'zod/v3';

const slice = (z: typeof zod) =>
  z
    .object({
      tier: z.string().describe('dedicated, mig, mps or time-sliced'),
      pool: z.string(),
      gpuModel: z.string(),
      migProfile: z.string().optional(),
      gpusPerReplica: z.number(),
    })
    .passthrough();

const option = (z: typeof zod) =>
  z
    .object({
      slice: slice(z),
      replicas: z.number(),
      gpuEquivalents: z.number().describe('GPU-equivalents of all replicas'),
      cost: z
        .object({
          monthly: z
            .number()
            .describe('Monthly cost of all replicas, micro-dollars (730 h)'),
          hourly: z.number().describe('Hourly cost, micro-dollars'),
          costPerThousandTokens: z
            .number()
            .optional()
            .describe('Micro-dollars per 1,000 generated tokens'),
        })
        .passthrough(),
      verdict: z
        .string()
        .describe(
          "allowed, needs-approval or forbidden by the team's quota, budget and tier policy",
        ),
      reasons: z
        .array(z.string())
        .describe('Why it needs approval or is forbidden'),
    })
    .passthrough();

/** A quote (`POST /quote`'s answer): every tier and pool that fits, with cost, quota and policy. */
export const quoteOutput = (z: typeof zod) =>
  z
    .object({
      service: z.string(),
      team: z.string(),
      environment: z.string(),
      dtype: z.string().describe('The precision quoted'),
      recommended: option(z)
        .optional()
        .describe('The cheapest allowed option; absent when nothing fits'),
      options: z
        .array(option(z))
        .describe('Every option that fits, best first'),
      unavailable: z
        .array(z.object({ slice: slice(z), reason: z.string() }).passthrough())
        .describe('Tiers and pools that do not fit, with the reason'),
      dtypes: z
        .array(
          z
            .object({
              dtype: z.string(),
              available: z.boolean(),
              reason: z.string().optional(),
            })
            .passthrough(),
        )
        .describe("The model's precisions on the runtime"),
    })
    .passthrough();
