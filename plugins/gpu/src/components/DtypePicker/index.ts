export { GPU_DTYPE_PICKER_FIELD } from './fieldName';
export { DtypePicker } from './DtypePicker';
