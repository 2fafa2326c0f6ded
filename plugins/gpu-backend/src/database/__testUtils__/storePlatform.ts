import { parsePlatform, Platform } from '@gpu-platform/backstage-plugin-gpu-common';

/**
 * The platform the store tests govern admission with: `a100` (4 nodes x 8 A100-80GB, 32 GPUs, about $500 per GPU
 * and month), `mig` (one A100-80GB
 * split into seven 1g.10gb slots), `h100` (1 node x 8 H100-80GB) and `spot` (1 node x 8 A100-80GB, spot), with the
 * default environments (dev, staging, production).
 */
export const storePlatform: Platform = parsePlatform({
  pools: [
    {
      name: 'a100',
      gpuModel: 'A100-80GB',
      gpusPerNode: 8,
      maxNodes: 4,
      // $500.004 per GPU and month of 730 hours, as the tests' reservations say.
      pricePerNodeHour: '5.4795',
      sharing: { type: 'none' },
    },
    {
      name: 'mig',
      gpuModel: 'A100-80GB',
      gpusPerNode: 1,
      maxNodes: 1,
      pricePerNodeHour: '4.1',
      sharing: { type: 'mig', layout: { '1g.10gb': 7 } },
    },
    {
      name: 'h100',
      gpuModel: 'H100-80GB',
      gpusPerNode: 8,
      maxNodes: 1,
      pricePerNodeHour: '55.04',
      sharing: { type: 'none' },
    },
    {
      name: 'spot',
      gpuModel: 'A100-80GB',
      gpusPerNode: 8,
      maxNodes: 1,
      capacityType: 'spot',
      pricePerNodeHour: '13.1',
      sharing: { type: 'none' },
    },
  ],
});
