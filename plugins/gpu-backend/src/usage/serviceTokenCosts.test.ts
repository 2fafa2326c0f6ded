import {
  costPerThousandTokensAtRate,
  Pool,
  PoolPrice,
  pooledCost,
  ServiceThroughput,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { serviceTokenCosts } from './serviceTokenCosts';

/** An A100 node of 8 GPUs at 27.447 an hour, as the demo's a100-mig pool. */
const price: PoolPrice = {
  pool: { name: 'a100-mig', gpusPerNode: 8 } as Pool,
  nodeHour: 27_447_000,
  gpuHour: Math.round(27_447_000 / 8),
};
const throughput: ServiceThroughput = {
  basis: 'estimated',
  tokensPerSecondPerReplica: 400,
  replicas: 2,
  capacityTokensPerSecond: 800,
};

describe('serviceTokenCosts, estimated', () => {
  it('prices an hour of its replicas at the share of a GPU each is charged for, not a layout weight', () => {
    // A 1g.10gb held at 1/7 of an A100 per replica (its reservation), in a layout that weighs it 2/15 today.
    const costs = serviceTokenCosts({
      allocationMicros: 0,
      throughput,
      price,
      sharePerReplica: 1 / 7,
    });
    const hourly = pooledCost(price, 1 / 7, 1, 2);
    expect(costs).toMatchObject({
      basis: 'estimated',
      capacityTokensPerSecond: 800,
      costPerThousandOutputTokensMicros: costPerThousandTokensAtRate(
        hourly,
        800,
      ),
    });
    expect(costs!.costPerThousandOutputTokensMicros).not.toBe(
      costPerThousandTokensAtRate(pooledCost(price, 2 / 15, 1, 2), 800),
    );
  });

  it('gives no estimate without the share (its pool left the config)', () => {
    expect(
      serviceTokenCosts({ allocationMicros: 0, throughput, price }),
    ).toBeUndefined();
  });
});
