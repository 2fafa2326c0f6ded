import { AttributedValue } from '@internal/backstage-plugin-gpu-common';

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

/** How a figure was obtained and how far to trust it, for the caption under it. */
export function describeAttribution(value: AttributedValue): string {
  return (
    value.note ?? `${METHODS[value.method]}, ${value.confidence} confidence`
  );
}
