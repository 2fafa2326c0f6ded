export { createPlatformChecks } from './createPlatformChecks';
export { LiveClusterCheck } from './LiveClusterCheck';
export type { LiveClusterCheckOptions } from './LiveClusterCheck';
export { PlatformChecks } from './PlatformChecks';
export type { PlatformChecksOptions } from './PlatformChecks';
