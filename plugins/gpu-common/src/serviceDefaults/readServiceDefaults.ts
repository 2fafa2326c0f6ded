import { Config } from '@backstage/config';
import { Platform } from '../platform/types';
import { parseServiceDefaults } from './parseServiceDefaults';

/**
 * Reads and validates the optional `gpu.serviceDefaults` section of app-config; see {@link parseServiceDefaults}.
 *
 * @public
 */
export function readServiceDefaults(config: Config, platform: Platform) {
  return parseServiceDefaults(
    config.getOptional('gpu.serviceDefaults'),
    platform,
  );
}
