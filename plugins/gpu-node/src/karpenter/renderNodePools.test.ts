import {
  demoPlatformConfig,
  parsePlatform,
  parsePlatformOperations,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { renderPlatformManifests } from '../renderPlatformManifests';
import { validateManifests } from '../__testUtils__/validateManifests';
import { NodePool } from './types';

/** The demo platform with `extra` merged into its `gpu` section, and its operations. */
function render(extra: Record<string, unknown> = {}) {
  const raw: unknown = { ...demoPlatformConfig, ...extra };
  const platform = parsePlatform(raw);
  const operations = parsePlatformOperations(raw, platform);
  return renderPlatformManifests(platform, { operations }).filter(
    (o): o is NodePool => o.kind === 'NodePool',
  );
}

function byName(pools: NodePool[], name: string): NodePool {
  const found = pools.find(p => p.metadata.name === name);
  if (!found) throw new Error(`no NodePool ${name}`);
  return found;
}

/** The demo pools with `karpenter` blocks set on the named ones. */
function withPoolKarpenter(blocks: Record<string, unknown>) {
  return {
    pools: demoPlatformConfig.pools.map(pool =>
      blocks[pool.name] ? { ...pool, karpenter: blocks[pool.name] } : pool,
    ),
  };
}

describe('Karpenter NodePools', () => {
  it('renders one NodePool per pool with the capacity type, instance labels as requirements, GPU limits and consolidation', () => {
    const pools = render();
    expect(pools.map(p => p.metadata.name)).toEqual([
      'a100-mig',
      'h100',
      'l4-mps',
      'l4-ondemand',
      'spot-l4',
      't4-timeslice',
    ]);
    const spot = byName(pools, 'spot-l4');
    expect(spot.apiVersion).toBe('karpenter.sh/v1');
    expect(spot.spec.template.spec.requirements).toEqual([
      { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] },
      {
        key: 'node.kubernetes.io/instance-type',
        operator: 'In',
        values: ['g6.xlarge'],
      },
    ]);
    expect(spot.spec.template.spec.taints).toEqual([
      { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' },
      { key: 'gpu.example.com/spot', value: 'true', effect: 'NoSchedule' },
    ]);
    expect(spot.spec.template.spec.nodeClassRef).toEqual({
      group: 'karpenter.k8s.aws',
      kind: 'EC2NodeClass',
      name: 'gpu',
    });
    // 6 nodes x 1 GPU; the a100-mig pool: 1 node x 8 GPUs.
    expect(spot.spec.limits).toEqual({ 'nvidia.com/gpu': '6' });
    expect(byName(pools, 'a100-mig').spec.limits).toEqual({
      'nvidia.com/gpu': '8',
    });
    expect(spot.spec.disruption).toEqual({
      consolidationPolicy: 'WhenEmptyOrUnderutilized',
      consolidateAfter: '5m',
    });
  });

  it('puts the non-instance node labels and the device-plugin and MIG config labels on the template', () => {
    const mig = byName(render(), 'a100-mig');
    expect(mig.spec.template.metadata?.labels).toEqual({
      'gpu.example.com/pool': 'a100-mig',
      'nvidia.com/device-plugin.config': expect.any(String),
      'nvidia.com/mig.config': 'all-balanced',
    });
    const mps = byName(render(), 'l4-mps');
    expect(
      mps.spec.template.metadata?.labels?.['nvidia.com/device-plugin.config'],
    ).toMatch(/mps/);
  });

  it('takes instance families, node class and consolidateAfter from the pool and gpu.karpenter, and skips unmanaged pools', () => {
    const pools = render({
      karpenter: {
        consolidateAfter: '15m',
        nodeClassRef: {
          group: 'karpenter.k8s.aws',
          kind: 'EC2NodeClass',
          name: 'gpu-al2023',
        },
      },
      ...withPoolKarpenter({
        'l4-ondemand': { instanceFamilies: ['g6', 'g6e'] },
        h100: { managed: false },
        't4-timeslice': {
          consolidateAfter: 'Never',
          nodeClassRef: {
            group: 'karpenter.k8s.aws',
            kind: 'EC2NodeClass',
            name: 't4',
          },
        },
      }),
    });
    expect(pools.map(p => p.metadata.name)).not.toContain('h100');
    const l4 = byName(pools, 'l4-ondemand');
    expect(l4.spec.template.spec.requirements).toContainEqual({
      key: 'karpenter.k8s.aws/instance-family',
      operator: 'In',
      values: ['g6', 'g6e'],
    });
    expect(l4.spec.disruption.consolidateAfter).toBe('15m');
    expect(l4.spec.template.spec.nodeClassRef.name).toBe('gpu-al2023');
    const t4 = byName(pools, 't4-timeslice');
    expect(t4.spec.disruption.consolidateAfter).toBe('Never');
    expect(t4.spec.template.spec.nodeClassRef.name).toBe('t4');
  });

  it('renders NodePools the Karpenter CRD schema accepts, and the schema check rejects an unknown field', () => {
    const pools = render(
      withPoolKarpenter({ 'l4-ondemand': { instanceFamilies: ['g6'] } }),
    );
    expect(validateManifests(pools)).toEqual([]);
    const broken = structuredClone(pools[0]) as any;
    broken.spec.template.spec.nodeClass = 'gpu';
    expect(validateManifests([broken]).join('\n')).toMatch(
      /NodePool \/a100-mig: \/spec\/template\/spec must NOT have additional properties .*nodeClass/,
    );
  });

  it('renders none when gpu.karpenter.enabled is false or no operations are given', () => {
    expect(render({ karpenter: { enabled: false } })).toEqual([]);
    expect(
      renderPlatformManifests(parsePlatform(demoPlatformConfig)).filter(
        o => o.kind === 'NodePool',
      ),
    ).toEqual([]);
  });

  it('refuses a capacity-type label that contradicts capacityType, and a label Karpenter reserves', () => {
    const contradicting = {
      pools: demoPlatformConfig.pools.map(pool =>
        pool.name === 'spot-l4'
          ? { ...pool, capacityType: 'on-demand' as const }
          : pool,
      ),
    };
    expect(() => render(contradicting)).toThrow(
      /spot-l4: node label karpenter.sh\/capacity-type=spot contradicts karpenter.sh\/capacity-type In \[on-demand\]/,
    );
    const reserved = {
      pools: demoPlatformConfig.pools.map(pool =>
        pool.name === 'h100'
          ? {
              ...pool,
              nodeLabels: { ...pool.nodeLabels, 'kubernetes.io/hostname': 'x' },
            }
          : pool,
      ),
    };
    expect(() => render(reserved)).toThrow(
      /h100: Karpenter sets node label kubernetes.io\/hostname itself/,
    );
  });

  it('refuses instance families that exclude the pinned instance type, or on a non-EC2 node class, and bad durations', () => {
    expect(() =>
      render(withPoolKarpenter({ h100: { instanceFamilies: ['p4d'] } })),
    ).toThrow(
      /gpu.pools\[5\].karpenter.instanceFamilies: the pool's nodeLabels pin node.kubernetes.io\/instance-type p5.48xlarge, of family p5/,
    );
    expect(() =>
      render(
        withPoolKarpenter({
          h100: {
            instanceFamilies: ['p5'],
            nodeClassRef: {
              group: 'karpenter.azure.com',
              kind: 'AKSNodeClass',
              name: 'gpu',
            },
          },
        }),
      ),
    ).toThrow(/are EC2 instance families/);
    expect(() =>
      render({ karpenter: { consolidateAfter: '5 minutes' } }),
    ).toThrow(
      /gpu.karpenter.consolidateAfter: must be a duration such as 30s, 5m or 1h30m, or Never/,
    );
    expect(() =>
      render(withPoolKarpenter({ h100: { managed: 'no' } })),
    ).toThrow(/gpu.pools\[5\].karpenter.managed/);
  });
});
