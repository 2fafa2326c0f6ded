import { z } from 'zod';
import { ConfigIssues } from './configIssues';
import { defaultEnvironments } from './defaultEnvironments';
import { isDns1123Label } from './names';
import { platformConfigSchema } from './platformConfigSchema';
import { EnvironmentPolicy } from './types';

type RawEnvironment = NonNullable<
  z.output<typeof platformConfigSchema>['environments']
>[number];

/**
 * `gpu.environments` replaces the default list; an entry named like a default (dev, staging, production) takes its
 * unset fields from that default, any other entry must state its allowedTiers.
 */
export function buildEnvironments(
  raw: RawEnvironment[] | undefined,
  issues: ConfigIssues,
): EnvironmentPolicy[] {
  if (!raw) {
    return defaultEnvironments.map(e => ({
      ...e,
      allowedTiers: [...e.allowedTiers],
    }));
  }
  const seen = new Set<string>();
  return raw.flatMap((entry, index) => {
    const path = ['gpu', 'environments', index];
    if (!isDns1123Label(entry.name)) {
      issues.add(
        [...path, 'name'],
        `"${entry.name}" is not a DNS-1123 label (lowercase letters, digits and "-"), e.g. production`,
      );
    }
    if (seen.has(entry.name)) {
      issues.add(
        [...path, 'name'],
        `duplicate environment name "${entry.name}"`,
      );
    }
    seen.add(entry.name);
    const base = defaultEnvironments.find(e => e.name === entry.name);
    const allowedTiers = entry.allowedTiers ?? base?.allowedTiers;
    if (!allowedTiers) {
      issues.add(
        [...path, 'allowedTiers'],
        'an environment other than dev, staging or production must list its allowedTiers (dedicated, mig, mps, time-sliced)',
      );
      return [];
    }
    const priorityClass =
      entry.priorityClass ?? base?.priorityClass ?? `gpu-${entry.name}`;
    if (!isDns1123Label(priorityClass)) {
      issues.add(
        [...path, 'priorityClass'],
        `"${priorityClass}" is not a DNS-1123 label (lowercase letters, digits and "-")`,
      );
    }
    return [
      {
        name: entry.name,
        allowedTiers: [...new Set(allowedTiers)],
        maxDedicatedGpus: entry.maxDedicatedGpus ?? base?.maxDedicatedGpus ?? 2,
        priorityClass,
        podDisruptionBudget:
          entry.podDisruptionBudget ?? base?.podDisruptionBudget ?? false,
        ...(entry.clusters && { clusters: [...new Set(entry.clusters)] }),
      },
    ];
  });
}
