import { GpuModel } from '@gpu-platform/backstage-plugin-gpu-common';
import { stableName } from '../names/stableName';

function sortedEntries(
  layout: Record<string, number>,
): Array<[string, number]> {
  return Object.entries(layout)
    .filter(([, count]) => count > 0)
    .sort(([a], [b]) => (a < b ? -1 : 1));
}

/** For each compute size, the profile of that size with the most instances (the smallest memory). */
function baseProfile(
  gpuModel: GpuModel,
  computeSlices: number,
): string | undefined {
  return gpuModel.migProfiles
    .filter(p => p.computeSlices === computeSlices)
    .sort((a, b) => b.maxInstances - a.maxInstances)[0]?.name;
}

/**
 * NVIDIA's `all-balanced` layout of a GPU: 2 x 1g + 1 x 2g + 1 x 3g of the smallest-memory profiles (2 x 1g + 1 x 2g
 * on a 4-slice A30). Undefined when the GPU lacks those profiles.
 */
function balancedLayout(
  gpuModel: GpuModel,
): Record<string, number> | undefined {
  const sizes = gpuModel.migComputeSlices >= 7 ? [1, 2, 3] : [1, 2];
  const names = sizes.map(size => baseProfile(gpuModel, size));
  if (names.some(name => name === undefined)) {
    return undefined;
  }
  return Object.fromEntries(names.map((name, i) => [name!, i === 0 ? 2 : 1]));
}

function sameLayout(
  a: Record<string, number>,
  b: Record<string, number>,
): boolean {
  return JSON.stringify(sortedEntries(a)) === JSON.stringify(sortedEntries(b));
}

/**
 * Name of a MIG layout for the MIG Manager's `nvidia.com/mig.config` node label. NVIDIA's names when the layout is one
 * of theirs (`all-<profile>` for one profile at its maximum count, `all-balanced`), otherwise
 * `mig-<count>x<profile>-...` with profiles in name order (hashed down to 63 characters when longer).
 *
 * @public
 */
export function migLayoutName(
  gpuModel: GpuModel,
  layout: Record<string, number>,
): string {
  const entries = sortedEntries(layout);
  if (entries.length === 1) {
    const [profileName, count] = entries[0];
    const profile = gpuModel.migProfiles.find(p => p.name === profileName);
    if (profile && profile.maxInstances === count) {
      return `all-${profileName}`;
    }
  }
  const balanced = balancedLayout(gpuModel);
  if (balanced && sameLayout(balanced, layout)) {
    return 'all-balanced';
  }
  const joined = `mig-${entries.map(([p, c]) => `${c}x${p}`).join('-')}`;
  return joined.length <= 63 ? joined : stableName([joined]);
}
