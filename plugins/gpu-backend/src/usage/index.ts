export { createUsage } from './createUsage';
export { UsageService } from './UsageService';
export type { QuotaSource, UsageServiceOptions } from './UsageService';
