import { Slice } from './types';

/** `an` before a letter whose name starts with a vowel sound (an A100, an H100, an L4), `a` otherwise (a T4). */
function article(word: string): string {
  return /^([AEFHILMNORSX]|8)/i.test(word) ? 'an' : 'a';
}

/**
 * A short human description of a slice for messages and UIs: `1 x L4`, `a 1g.10gb MIG slice of an A100-80GB`,
 * `a 1/4 MPS share of an L4`, `a 1/4 time-sliced share of a T4`.
 *
 * @public
 */
export function describeSlice(slice: Slice): string {
  const gpu = `${article(slice.gpuModel)} ${slice.gpuModel}`;
  switch (slice.tier) {
    case 'dedicated':
      return `${slice.gpusPerReplica} x ${slice.gpuModel}`;
    case 'mig':
      return `a ${slice.migProfile} MIG slice of ${gpu}`;
    case 'mps':
      return `a 1/${Math.round(1 / slice.gpuShare)} MPS share of ${gpu}`;
    default:
      return `a 1/${Math.round(
        1 / slice.gpuShare,
      )} time-sliced share of ${gpu}`;
  }
}
