import { Pool } from '../platform/types';
import { onDemandReferencePool, spotSaving } from './spotSaving';

function pool(
  name: string,
  gpuModel: string,
  capacityType: Pool['capacityType'],
  pricePerNodeHour: string,
  gpusPerNode = 1,
): Pool {
  return {
    name,
    gpuModel,
    gpusPerNode,
    maxNodes: 4,
    nodeLabels: {},
    nodeTaints: [],
    capacityType,
    pricePerNodeHour,
    sharing: { type: 'none' },
    renameByDefault: false,
    allocation: { backend: 'device-plugin', requested: 'device-plugin' },
  };
}

describe('spot savings', () => {
  const spotL4 = pool('spot-l4', 'L4', 'spot', '0.349');
  const l4 = pool('l4', 'L4', 'on-demand', '0.8048');
  const bigL4 = pool('l4-x8', 'L4', 'on-demand', '6.2', 8); // 0.775 per GPU-hour, cheaper
  const t4 = pool('t4', 'T4', 'on-demand', '0.526');

  it('compares a spot pool with the cheapest on-demand pool of the same GPU model', () => {
    const platform = { pools: [spotL4, l4, bigL4, t4] };
    expect(onDemandReferencePool(platform, spotL4)).toBe(bigL4);
    expect(onDemandReferencePool({ pools: [spotL4, l4, t4] }, spotL4)).toBe(l4);
    expect(onDemandReferencePool(platform, l4)).toBeUndefined();
    expect(
      onDemandReferencePool({ pools: [spotL4, t4] }, spotL4),
    ).toBeUndefined();
  });

  it('is the on-demand allocation minus the spot allocation', () => {
    // (0.8048 - 0.349) x 6 GPUs x 730 h = 1,996.404 USD
    expect(spotSaving(spotL4, l4, 6, 730)).toBe(1_996_404_000);
    expect(spotSaving(spotL4, l4, 0, 730)).toBe(0);
  });
});
