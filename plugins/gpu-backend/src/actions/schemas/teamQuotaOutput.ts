import { z as zod } from 'zod/v3';

/** A team's quota as `GET /quotas` answers it, with what is left of it; fields not listed here pass through. */
export const teamQuotaOutput = (z: typeof zod) =>
  z
    .object({
      team: z.string().describe('Team, a catalog group name'),
      pools: z
        .record(z.number())
        .describe('Quota per pool, GPU-equivalents (pools left out: none)'),
      reservedGpuEquivalents: z
        .record(z.number())
        .describe(
          "GPU-equivalents held per pool by the team's approved services, pools without quota included",
        ),
      remainingGpuEquivalents: z
        .record(z.number())
        .describe(
          'GPU-equivalents left per pool of the quota: quota minus held, never below 0',
        ),
      monthlyBudgetMicros: z.number().describe('Monthly budget, micro-dollars'),
      reservedMonthlyCostMicros: z
        .number()
        .describe('Projected monthly cost held over all pools, micro-dollars'),
      remainingMonthlyBudgetMicros: z
        .number()
        .describe('Budget minus the cost held, never below 0, micro-dollars'),
      updatedBy: z.string().describe('Who last set the quota'),
      updatedAt: z.string(),
    })
    .passthrough();
