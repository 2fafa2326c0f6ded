import { demoPlatformConfig } from '../platform/demoPlatformConfig';
import { parsePlatform } from '../platform/parsePlatform';
import { parsePlatformOperations } from './parsePlatformOperations';

const platform = parsePlatform(demoPlatformConfig);

describe('parsePlatformOperations', () => {
  it('manages every pool with the default node class and consolidateAfter, and alerts cluster-wide on production cards', () => {
    const operations = parsePlatformOperations(demoPlatformConfig, platform);
    expect(operations.nodePools.map(p => p.pool)).toEqual(
      platform.pools.map(p => p.name),
    );
    expect(operations.nodePools[0]).toEqual({
      pool: 'l4-ondemand',
      nodeClassRef: {
        group: 'karpenter.k8s.aws',
        kind: 'EC2NodeClass',
        name: 'gpu',
      },
      instanceFamilies: [],
      consolidateAfter: '5m',
    });
    expect(operations.alerts).toEqual({
      scope: 'cluster',
      namespace: 'monitoring',
      labels: {},
      productionPriorityClasses: ['gpu-production'],
      queueWaitingAbove: 10,
      queueFor: '5m',
    });
  });

  it('takes the priority classes of the named production environments', () => {
    const raw = {
      ...demoPlatformConfig,
      alerts: { productionEnvironments: ['staging', 'production'] },
    };
    expect(
      parsePlatformOperations(raw, platform).alerts?.productionPriorityClasses,
    ).toEqual(['gpu-staging', 'gpu-production']);
  });

  it('turns NodePools and alerts off, and names every bad key at once', () => {
    expect(
      parsePlatformOperations(
        { karpenter: { enabled: false }, alerts: { enabled: false } },
        platform,
      ),
    ).toEqual({ nodePools: [], alerts: undefined });
    expect(() =>
      parsePlatformOperations(
        {
          alerts: {
            namespace: 'Monitoring',
            labels: { 'bad key!': 'x' },
          },
        },
        platform,
      ),
    ).toThrow(
      /2 problems: gpu.alerts.namespace: "Monitoring" is not a DNS-1123 label .*; gpu.alerts.labels\["bad key!"\]: "bad key!: x" is not a valid Kubernetes label/,
    );
    expect(() =>
      parsePlatformOperations({ karpenter: { nodeClass: 'gpu' } }, platform),
    ).toThrow(/gpu.karpenter: unknown key "nodeClass"; allowed keys are enabled, nodeClassRef, consolidateAfter/);
  });
});
