import { MigProfile } from './types';

const MIG_PROFILE_NAME = /^([1-9])g\.([1-9][0-9]*)gb$/;

/**
 * Reads the compute slices and GB of memory from a MIG profile name such as `3g.40gb` (`Ng` is the number of
 * compute slices). Returns `undefined` when the name has another shape.
 *
 * @public
 */
export function parseMigProfileName(
  name: string,
): Pick<MigProfile, 'computeSlices' | 'memoryGb'> | undefined {
  const match = MIG_PROFILE_NAME.exec(name);
  if (!match) {
    return undefined;
  }
  return { computeSlices: Number(match[1]), memoryGb: Number(match[2]) };
}

/**
 * A {@link MigProfile} from its NVIDIA name, the most instances one GPU holds of it and, when known, its SMs.
 *
 * @public
 */
export function migProfile(
  name: string,
  maxInstances: number,
  multiprocessors?: number,
): MigProfile {
  const parsed = parseMigProfileName(name);
  if (!parsed) {
    throw new Error(`Not a MIG profile name: ${name}; expected <N>g.<M>gb`);
  }
  return {
    name,
    ...parsed,
    maxInstances,
    ...(multiprocessors !== undefined && { multiprocessors }),
  };
}
