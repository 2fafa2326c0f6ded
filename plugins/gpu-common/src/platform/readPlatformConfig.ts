import { Config } from '@backstage/config';
import { parsePlatform } from './parsePlatform';
import { Platform } from './types';

/**
 * Reads and validates the optional `gpu` section of app-config; see {@link parsePlatform}.
 *
 * @public
 */
export function readPlatformConfig(config: Config): Platform {
  return parsePlatform(config.getOptional('gpu'));
}
