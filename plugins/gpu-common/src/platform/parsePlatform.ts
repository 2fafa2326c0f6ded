import { buildEnvironments } from './buildEnvironments';
import { buildGpuModels } from './buildGpuModels';
import { buildModels } from './buildModels';
import { buildPools } from './buildPools';
import { buildTeams } from './buildTeams';
import { ConfigIssues } from './configIssues';
import { DEFAULT_HOURS_PER_MONTH } from '../cost/monthlyProjection';
import { defaultKueueSettings } from './defaultEnvironments';
import { isDns1123Label } from './names';
import { platformConfigSchema } from './platformConfigSchema';
import { Platform } from './types';

/**
 * Validates the `gpu` section of app-config (as a plain object; `undefined` means "not configured") and returns the
 * platform with defaults applied: the built-in GPU models and model catalogue extended by `gpuModels` and `models`,
 * the default environments unless `environments` is set, Kueue `v1beta2` with cohort `gpu`, 730 hours a month.
 *
 * @throws GpuDomainError with code `INVALID_CONFIG` whose message names every bad key by its path (e.g.
 *   `gpu.pools[2].pricePerNodeHour`) and says what is allowed.
 * @public
 */
export function parsePlatform(raw: unknown): Platform {
  const issues = new ConfigIssues();
  const parsed = platformConfigSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      issues.add(['gpu', ...issue.path], issue.message);
    }
    issues.throwIfAny();
  }
  const config = parsed.data!;

  const gpuModels = buildGpuModels(config.gpuModels ?? {}, issues);
  const models = buildModels(config.models ?? {}, issues);
  const pools = buildPools(config.pools ?? [], gpuModels, issues);
  const environments = buildEnvironments(config.environments, issues);
  const teams = buildTeams(config.teams ?? [], pools, issues);

  const kueue = { ...defaultKueueSettings, ...config.kueue };
  if (!isDns1123Label(kueue.cohort)) {
    issues.add(
      ['gpu', 'kueue', 'cohort'],
      `"${kueue.cohort}" is not a DNS-1123 label (lowercase letters, digits and "-")`,
    );
  }
  issues.throwIfAny();

  return {
    gpuModels,
    pools,
    environments,
    teams,
    models,
    kueue,
    hoursPerMonth: config.hoursPerMonth ?? DEFAULT_HOURS_PER_MONTH,
  };
}
