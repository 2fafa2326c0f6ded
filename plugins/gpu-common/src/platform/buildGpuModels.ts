import { z } from 'zod';
import { ConfigIssues } from './configIssues';
import { defaultGpuModels } from './defaultGpuModels';
import { parseMigProfileName } from './migProfileName';
import { isLabelValue } from './names';
import { platformConfigSchema } from './platformConfigSchema';
import { GpuModel, MigProfile } from './types';

type RawGpuModels = NonNullable<
  z.output<typeof platformConfigSchema>['gpuModels']
>;
type RawGpuModel = RawGpuModels[string];

const GPU_MODEL_KEY = /^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$/;

/** The defaults, extended and overridden field by field by `gpu.gpuModels`. */
export function buildGpuModels(
  raw: RawGpuModels,
  issues: ConfigIssues,
): Record<string, GpuModel> {
  const models: Record<string, GpuModel> = structuredClone(defaultGpuModels);
  for (const [key, entry] of Object.entries(raw)) {
    const path = ['gpu', 'gpuModels', key];
    if (!GPU_MODEL_KEY.test(key)) {
      issues.add(
        path,
        'GPU model names may contain only letters, digits, ".", "_" and "-", e.g. A100-80GB',
      );
      continue;
    }
    const model = mergeGpuModel(
      key,
      Object.hasOwn(defaultGpuModels, key) ? models[key] : undefined,
      entry,
      issues,
    );
    if (model) {
      models[key] = model;
    }
  }
  return models;
}

function mergeGpuModel(
  key: string,
  base: GpuModel | undefined,
  entry: RawGpuModel,
  issues: ConfigIssues,
): GpuModel | undefined {
  const path = ['gpu', 'gpuModels', key];
  const memoryGiB = entry.memoryGiB ?? base?.memoryGiB;
  const productLabel = entry.productLabel ?? base?.productLabel;
  if (memoryGiB === undefined || productLabel === undefined) {
    issues.add(
      path,
      'a GPU model that is not built in needs memoryGiB and productLabel',
    );
    return undefined;
  }
  if (!isLabelValue(productLabel)) {
    issues.add(
      [...path, 'productLabel'],
      'must be a Kubernetes label value (<= 63 letters, digits, "-", "_", "."), e.g. NVIDIA-L4',
    );
  }

  const migProfiles = entry.migProfiles
    ? entry.migProfiles.flatMap((p, i) =>
        toMigProfile(p, [...path, 'migProfiles', i], issues),
      )
    : base?.migProfiles ?? [];
  const migComputeSlices =
    entry.migComputeSlices ?? base?.migComputeSlices ?? 0;

  if (migProfiles.length > 0 && migComputeSlices === 0) {
    issues.add(
      [...path, 'migComputeSlices'],
      'a GPU with MIG profiles needs migComputeSlices (7, or 4 on an A30)',
    );
  }
  if (migProfiles.length === 0 && migComputeSlices > 0) {
    issues.add(
      [...path, 'migProfiles'],
      'a GPU with migComputeSlices > 0 needs at least one MIG profile',
    );
  }
  const seen = new Set<string>();
  migProfiles.forEach((profile, i) => {
    const profilePath = [...path, 'migProfiles', i];
    if (seen.has(profile.name)) {
      issues.add(profilePath, `duplicate MIG profile ${profile.name}`);
    }
    seen.add(profile.name);
    if (profile.computeSlices * profile.maxInstances > migComputeSlices) {
      issues.add(
        profilePath,
        `${profile.maxInstances} x ${profile.name} need ${
          profile.computeSlices * profile.maxInstances
        } compute slices; the GPU has ${migComputeSlices}`,
      );
    }
  });

  return {
    name: key,
    memoryGiB,
    productLabel,
    productName:
      entry.productName ??
      (entry.productLabel === undefined ? base?.productName : undefined) ??
      productLabel.replace(/-/g, ' '),
    migComputeSlices,
    migProfiles,
  };
}

function toMigProfile(
  raw: NonNullable<RawGpuModel['migProfiles']>[number],
  path: PropertyKey[],
  issues: ConfigIssues,
): MigProfile[] {
  const parsed = parseMigProfileName(raw.name);
  const computeSlices = raw.computeSlices ?? parsed?.computeSlices;
  const memoryGb = raw.memoryGb ?? parsed?.memoryGb;
  if (computeSlices === undefined || memoryGb === undefined) {
    issues.add(
      [...path, 'name'],
      `"${raw.name}" is not a MIG profile name like 3g.40gb; give computeSlices and memoryGb explicitly`,
    );
    return [];
  }
  return [
    {
      name: raw.name,
      computeSlices,
      memoryGb,
      maxInstances: raw.maxInstances,
      ...(raw.multiprocessors !== undefined && {
        multiprocessors: raw.multiprocessors,
      }),
    },
  ];
}
