import { Config } from '@backstage/config';
import { Platform } from '../platform/types';
import { parsePlatformOperations } from './parsePlatformOperations';
import { PlatformOperations } from './types';

/**
 * Reads the Karpenter and alert settings of the optional `gpu` section of app-config; see
 * {@link parsePlatformOperations}.
 *
 * @public
 */
export function readPlatformOperations(
  config: Config,
  platform: Platform,
): PlatformOperations {
  return parsePlatformOperations(config.getOptional('gpu'), platform);
}
