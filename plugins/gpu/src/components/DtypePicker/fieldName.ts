/**
 * The name templates use for the precision picker: `ui:field: GpuDtypePicker`.
 *
 * @public
 */
export const GPU_DTYPE_PICKER_FIELD = 'GpuDtypePicker';
