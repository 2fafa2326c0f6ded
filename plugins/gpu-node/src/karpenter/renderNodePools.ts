import {
  Platform,
  PlatformOperations,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { nodeConfigLabels } from '../devicePlugin/nodeConfigLabels';
import { renderNodePool } from './renderNodePool';
import { NodePool } from './types';

/**
 * One Karpenter NodePool per Karpenter-managed pool of `operations` (in pool order); none for the others.
 *
 * @public
 */
export function renderNodePools(
  platform: Platform,
  operations: Pick<PlatformOperations, 'nodePools'>,
): NodePool[] {
  const configLabels = nodeConfigLabels(platform);
  return operations.nodePools.map(settings => {
    const pool = platform.pools.find(p => p.name === settings.pool);
    if (!pool) {
      throw new Error(`Karpenter settings for unknown pool ${settings.pool}`);
    }
    return renderNodePool(pool, settings, configLabels[pool.name] ?? {});
  });
}
