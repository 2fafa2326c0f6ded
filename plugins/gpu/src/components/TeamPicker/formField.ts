import { createFormField } from '@backstage/plugin-scaffolder-react/alpha';
import { GPU_TEAM_PICKER_FIELD } from './fieldName';
import { TeamPicker } from './TeamPicker';
import { validateTeamPicker } from './validateTeamPicker';

/** The owning-team picker as a new-frontend-system scaffolder form field (`ui:field: GpuTeamPicker`). */
export const gpuTeamPickerFormField = createFormField({
  name: GPU_TEAM_PICKER_FIELD,
  component: TeamPicker,
  validation: validateTeamPicker,
});
