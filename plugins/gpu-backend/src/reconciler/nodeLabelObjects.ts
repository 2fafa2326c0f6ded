import { UndeliveredObject } from '@gpu-platform/backstage-plugin-gpu-common';
import type { KubernetesObject } from '@kubernetes/client-node';
import { ClusterApplier } from '../cluster';
import { NodeConfigLabelPlan } from './nodeConfigLabelPlans';

function describeLabels(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
}

/**
 * What to server-side apply on the existing nodes of each planned pool: one `Node` object per node found by the
 * pool's selector, holding only its config labels, so our field manager owns those labels and nothing else of the
 * node. A node that two pools with different config labels both select, or a pool with nothing to select its nodes by,
 * is reported instead.
 */
export async function nodeLabelObjects(
  applier: ClusterApplier,
  plans: NodeConfigLabelPlan[],
): Promise<{ objects: KubernetesObject[]; undelivered: UndeliveredObject[] }> {
  const undelivered: UndeliveredObject[] = [];
  const nodes = new Map<
    string,
    { pools: string[]; labels: Record<string, string>; conflict: boolean }
  >();
  for (const plan of plans) {
    const labelSelector = describeLabels(plan.selector);
    if (!labelSelector) {
      undelivered.push({
        apiVersion: 'v1',
        kind: 'Node',
        name: `(nodes of pool ${plan.pool})`,
        reason: 'no-node-selector',
        message: `Pool ${
          plan.pool
        } has no node labels besides its config labels, so its nodes cannot be found: give the pool a node label its nodes carry, or label them ${describeLabels(
          plan.labels,
        )} yourself and leave nodeLabels out of gpu.reconcile.deliver`,
      });
      continue;
    }
    for (const node of await applier.list({
      apiVersion: 'v1',
      kind: 'Node',
      labelSelector,
    })) {
      const name = node.metadata?.name ?? '';
      const seen = nodes.get(name);
      if (!seen) {
        nodes.set(name, {
          pools: [plan.pool],
          labels: plan.labels,
          conflict: false,
        });
        continue;
      }
      seen.pools.push(plan.pool);
      seen.conflict ||=
        describeLabels(seen.labels) !== describeLabels(plan.labels);
    }
  }
  const objects: KubernetesObject[] = [];
  for (const [name, { pools, labels, conflict }] of nodes) {
    if (conflict) {
      undelivered.push({
        apiVersion: 'v1',
        kind: 'Node',
        name,
        reason: 'conflicting-pools',
        message: `Node ${name} carries the node labels of pools ${pools.join(
          ' and ',
        )}, which need different device-plugin or MIG configs; its config labels are left as they are until one pool's node labels stop matching it`,
      });
      continue;
    }
    objects.push({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels },
    });
  }
  return { objects, undelivered };
}
