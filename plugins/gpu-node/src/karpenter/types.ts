import type { V1ObjectMeta } from '@kubernetes/client-node';
import type { NodeClassRef } from '@gpu-platform/backstage-plugin-gpu-common';

/**
 * A node selector requirement of a Karpenter NodePool's template.
 *
 * @public
 */
export interface NodePoolRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';
  values?: string[];
}

/**
 * Karpenter `NodePool` (`karpenter.sh/v1`, cluster-scoped): one per Karpenter-managed GPU pool.
 *
 * @public
 */
export interface NodePool {
  apiVersion: 'karpenter.sh/v1';
  kind: 'NodePool';
  metadata: V1ObjectMeta;
  spec: {
    template: {
      metadata?: { labels?: Record<string, string> };
      spec: {
        nodeClassRef: NodeClassRef;
        requirements: NodePoolRequirement[];
        taints?: Array<{
          key: string;
          value?: string;
          effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
        }>;
      };
    };
    limits: Record<string, string>;
    disruption: {
      consolidationPolicy: 'WhenEmptyOrUnderutilized' | 'WhenEmpty';
      consolidateAfter: string;
    };
  };
}
