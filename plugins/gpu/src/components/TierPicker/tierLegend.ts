import { SharingTier } from '@gpu-platform/backstage-plugin-gpu-common';

/** What a tier means for the service on it. */
export interface TierLegendEntry {
  tier: SharingTier;
  isolation: string;
  memory: string;
  latency: string;
  goodFor: string;
}

/** The four tiers, strongest isolation first. */
export const TIER_LEGEND: TierLegendEntry[] = [
  {
    tier: 'dedicated',
    isolation: 'Full: whole GPUs, no neighbours',
    memory: 'All of each GPU’s memory',
    latency: 'Unaffected by other services',
    goodFor: 'Latency-critical production',
  },
  {
    tier: 'mig',
    isolation: 'Hardware: the GPU partitions memory and compute (A100, H100)',
    memory: 'A fixed slice no neighbour can touch',
    latency: 'Stable: the slice’s own compute and memory bandwidth',
    goodFor: 'Isolated small models, production included',
  },
  {
    tier: 'mps',
    isolation:
      'Capped: CUDA MPS runs the kernels of several processes at once, each within its memory and thread limits; a fault in one stops all',
    memory: 'A per-client limit',
    latency: 'Rises with busy neighbours (shared compute, bandwidth)',
    goodFor: 'Dev and bursty low-traffic work',
  },
  {
    tier: 'time-sliced',
    isolation:
      'None: the GPU interleaves whole contexts in turns, with no memory isolation',
    memory: 'Shared: one process can take it all and make the others fail',
    latency: 'Waits its turn: grows with each busy neighbour',
    goodFor: 'Dev, experiments and bursty low-traffic work',
  },
];

/** The rule of thumb for choosing among them. */
export const TIER_RULE_OF_THUMB =
  'Rule of thumb: dedicated for latency-critical production, MIG for isolated small models, sharing (MPS or time-slicing) for dev and bursty low-traffic work.';
