import {
  gpuQuotaReadPermission,
  TeamQuotaView,
  teamQuotaLeft,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { teamQuotaOutput } from './schemas/teamQuotaOutput';
import { apiOutput, GpuActionsOptions } from './types';

/** A team's quota with what is left of it per pool and of its budget. */
function withRemaining(quota: TeamQuotaView) {
  const left = teamQuotaLeft(quota);
  return {
    ...quota,
    remainingGpuEquivalents: left.gpuEquivalents,
    remainingMonthlyBudgetMicros: left.monthlyBudgetMicros,
  };
}

/**
 * `list-gpu-team-quotas`: `GET /quotas` (the teams whose quota `gpu.service.read` lets the caller read: every team for
 * the platform team) as the platform-wide view, which needs `gpu.quota.read` first; `GET /quotas` also answers a
 * team's members with their own team's.
 */
export function registerListGpuTeamQuotasAction(options: GpuActionsOptions) {
  const { actionsRegistry, authorized } = options;
  actionsRegistry.register({
    name: 'list-gpu-team-quotas',
    title: "List every team's GPU quota",
    description:
      "Lists every team's GPU quota for the platform team: per pool the quota, the GPU-equivalents held by approved services and what is left, and the monthly budget, the cost held and what is left of it (micro-dollars). Needs the gpu.quota.read permission; other callers are refused.",
    attributes: { readOnly: true, idempotent: true, destructive: false },
    examples: [
      {
        title: "The platform team reads every team's quota",
        input: {},
        output: {
          items: [
            {
              team: 'ml-platform',
              pools: { 'l4-ondemand': 4 },
              reservedGpuEquivalents: { 'l4-ondemand': 1 },
              remainingGpuEquivalents: { 'l4-ondemand': 3 },
              monthlyBudgetMicros: 60_000_000_000,
              reservedMonthlyCostMicros: 587_504_000,
              remainingMonthlyBudgetMicros: 59_412_496_000,
              updatedBy: 'user:default/alice',
              updatedAt: '2026-01-05T09:00:00.000Z',
            },
          ],
        },
      },
    ],
    schema: {
      input: z => z.object({}),
      output: z =>
        z.object({
          items: z
            .array(teamQuotaOutput(z))
            .describe('One entry per team with a quota, by team name'),
        }),
    },
    action: async ({ credentials }) => {
      await authorized.access.require(
        credentials,
        gpuQuotaReadPermission,
        `list every team's GPU quota without the ${gpuQuotaReadPermission.name} permission`,
      );
      const quotas = await authorized.governance.listQuotas(credentials);
      return { output: apiOutput({ items: quotas.map(withRemaining) }) };
    },
  });
}
