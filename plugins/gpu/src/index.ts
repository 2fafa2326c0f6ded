/**
 * Frontend plugin for GPU model services: governance page, entity card and tier picker.
 *
 * @packageDocumentation
 */
export { gpuPlugin as default } from './plugin';
export { gpuApiRef, GpuClient } from './api';
export type { CostExportFile, CostExportPeriod, GpuApi } from './api';
export {
  GPU_TIER_PICKER_FIELD,
  TierPicker,
  tierPickerFieldSchema,
  validateTierPicker,
} from './components/TierPicker';
export type { TierPickerProps, TierPickerValue } from './components/TierPicker';
export {
  GPU_TEAM_PICKER_FIELD,
  TeamPicker,
  validateTeamPicker,
} from './components/TeamPicker';
export {
  GPU_QUOTE_SUMMARY_FIELD,
  QuoteSummary,
} from './components/QuoteSummary';
export { GPU_DTYPE_PICKER_FIELD, DtypePicker } from './components/DtypePicker';
export {
  EntityGpuContent,
  EntityGpuServiceCard,
  EntityGpuServiceSummaryCard,
  GpuDtypePickerFieldExtension,
  GpuQuoteSummaryFieldExtension,
  GpuTeamPickerFieldExtension,
  GpuTierPickerFieldExtension,
  legacyGpuPlugin,
} from './legacy';
export {
  GPU_SERVICE_ID_ANNOTATION,
  isGpuServiceAvailable,
} from './components/GpuServiceCard';
