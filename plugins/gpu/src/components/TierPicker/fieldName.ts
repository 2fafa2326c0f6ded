/**
 * The name templates use for the tier picker: `ui:field: GpuTierPicker`.
 *
 * @public
 */
export const GPU_TIER_PICKER_FIELD = 'GpuTierPicker';
