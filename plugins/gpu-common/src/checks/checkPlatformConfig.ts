import { PlatformFinding } from '../api/platformChecks';
import { checkOperations } from '../operations/checkOperations';
import { PlatformOperations } from '../operations/types';
import { checkPoolPolicy } from '../platform/checkPoolPolicy';
import { Platform } from '../platform/types';
import { checkServiceDefaults } from '../serviceDefaults/checkServiceDefaults';
import { ServiceDefaults } from '../serviceDefaults/types';

/**
 * Every finding of the parsed `gpu` config: the pools and tier policy ({@link checkPoolPolicy}), the service
 * defaults ({@link checkServiceDefaults}) and the Karpenter NodePools ({@link checkOperations}), in that order.
 *
 * @public
 */
export function checkPlatformConfig(config: {
  platform: Platform;
  operations: PlatformOperations;
  serviceDefaults: ServiceDefaults;
}): PlatformFinding[] {
  const { platform } = config;
  return [
    ...checkPoolPolicy(platform),
    ...checkServiceDefaults(config.serviceDefaults, platform.pools),
    ...checkOperations(config.operations, platform.pools),
  ];
}
