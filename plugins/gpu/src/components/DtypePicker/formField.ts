import { createFormField } from '@backstage/plugin-scaffolder-react/alpha';
import { DtypePicker } from './DtypePicker';
import { GPU_DTYPE_PICKER_FIELD } from './fieldName';

/** The precision picker as a new-frontend-system scaffolder form field (`ui:field: GpuDtypePicker`). */
export const gpuDtypePickerFormField = createFormField({
  name: GPU_DTYPE_PICKER_FIELD,
  component: DtypePicker,
});
