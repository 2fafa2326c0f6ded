import { z } from 'zod';
import { listAllowed } from '../errors';
import { ConfigIssues } from './configIssues';
import { toDecimalString } from './decimal';
import { isDns1123Label } from './names';
import { platformConfigSchema } from './platformConfigSchema';
import { Pool, TeamQuota } from './types';

type RawTeam = NonNullable<
  z.output<typeof platformConfigSchema>['teams']
>[number];

/** A sanity bound on a team's monthly budget (USD). */
const MAX_MONTHLY_BUDGET = 1_000_000_000;

/** Teams from `gpu.teams`; quota keys must be pools, namespaces belong to one team each. */
export function buildTeams(
  raw: RawTeam[],
  pools: Pool[],
  issues: ConfigIssues,
): TeamQuota[] {
  const poolNames = pools.map(p => p.name);
  const teamNames = new Set<string>();
  const namespaceOwners = new Map<string, string>();
  return raw.map((entry, index) => {
    const path = ['gpu', 'teams', index];
    if (!isDns1123Label(entry.name)) {
      issues.add(
        [...path, 'name'],
        `"${entry.name}" is not a DNS-1123 label (lowercase letters, digits and "-", at most 63 characters)`,
      );
    }
    if (teamNames.has(entry.name)) {
      issues.add([...path, 'name'], `duplicate team name "${entry.name}"`);
    }
    teamNames.add(entry.name);

    const namespaces = entry.namespaces ?? [entry.name];
    namespaces.forEach((namespace, i) => {
      if (!isDns1123Label(namespace)) {
        issues.add(
          [...path, 'namespaces', i],
          `"${namespace}" is not a DNS-1123 label (lowercase letters, digits and "-", at most 63 characters)`,
        );
      }
      const owner = namespaceOwners.get(namespace);
      if (owner !== undefined) {
        issues.add(
          [...path, 'namespaces', i],
          `namespace "${namespace}" already belongs to team "${owner}"; each namespace belongs to one team`,
        );
      }
      namespaceOwners.set(namespace, entry.name);
    });

    const gpuQuota = entry.gpuQuota ?? {};
    for (const pool of Object.keys(gpuQuota)) {
      if (!poolNames.includes(pool)) {
        issues.add(
          [...path, 'gpuQuota', pool],
          `unknown pool "${pool}"; allowed: ${listAllowed(poolNames)}`,
        );
      }
    }

    const monthlyBudget = toDecimalString(entry.monthlyBudget);
    if (
      monthlyBudget !== undefined &&
      Number(monthlyBudget) > MAX_MONTHLY_BUDGET
    ) {
      issues.add(
        [...path, 'monthlyBudget'],
        `${monthlyBudget} USD per month is implausible; allowed: 0 to ${MAX_MONTHLY_BUDGET}`,
      );
    }
    if (monthlyBudget === undefined) {
      issues.add(
        [...path, 'monthlyBudget'],
        `${JSON.stringify(
          entry.monthlyBudget,
        )} is not a non-negative decimal; write USD per month such as 2500 or "2500.00"`,
      );
    }
    return {
      name: entry.name,
      namespaces,
      gpuQuota,
      monthlyBudget: monthlyBudget ?? '0',
    };
  });
}
