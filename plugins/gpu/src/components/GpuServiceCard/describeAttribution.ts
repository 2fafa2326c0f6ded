import { AttributedValue } from '@gpu-platform/backstage-plugin-gpu-common';

const METHODS: Record<AttributedValue['method'], string> = {
  measured: 'measured on its own GPUs',
  'measured-mig-instance': 'measured on its MIG instance',
  'apportioned-by-tokens':
    "the shared GPU's value split by share of generated tokens",
  'apportioned-evenly':
    "the shared GPU's value split evenly (no tokens generated)",
  nominal: 'nominal share, not measured',
  allocation: 'from the allocation',
};

/** Coverage below which the caption says how much of the window was measured (as the backend's confidence). */
const FULL_COVERAGE = 0.9;

/**
 * How a figure was obtained and how far to trust it, for the caption under it: the backend's note when it gives one
 * (it says itself how much was measured), else the method and confidence, with `measured over 50% of the window`
 * when the figure covers less than 90% of it.
 */
export function describeAttribution(value: AttributedValue): string {
  if (value.note) {
    return value.note;
  }
  const text = `${METHODS[value.method]}, ${value.confidence} confidence`;
  const coverage = value.coverage;
  if (coverage === undefined || coverage >= FULL_COVERAGE) {
    return text;
  }
  return `${text}; measured over ${Math.round(coverage * 100)}% of the window`;
}
