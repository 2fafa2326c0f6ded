export { GPU_TIER_PICKER_FIELD } from './fieldName';
export { TierPicker } from './TierPicker';
export { tierPickerFieldSchema } from './types';
export type { TierPickerProps, TierPickerValue } from './types';
export { validateTierPicker } from './validateTierPicker';
