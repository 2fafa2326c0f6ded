import { createFormField } from '@backstage/plugin-scaffolder-react/alpha';
import { TierPicker } from './TierPicker';
import { GPU_TIER_PICKER_FIELD } from './fieldName';
import { tierPickerFieldSchema } from './types';
import { validateTierPicker } from './validateTierPicker';

/** The tier picker as a new-frontend-system scaffolder form field (`ui:field: GpuTierPicker`). */
export const gpuTierPickerFormField = createFormField({
  name: GPU_TIER_PICKER_FIELD,
  component: TierPicker,
  validation: validateTierPicker,
  schema: tierPickerFieldSchema,
});
