import { CustomFieldValidator } from '@backstage/plugin-scaffolder-react';
import { gpuApiRef } from '../../api';
import { errorMessage } from '../common';
import { requestFromForm } from './requestFromForm';
import { problemWith } from './tierChoices';
import { TierPickerValue } from './types';

/**
 * Fails the step when the chosen tier and pool cannot be submitted: quotes the form's current inputs again (the
 * picker's last quote may be stale) and rejects a tier the environment forbids or a pool the model does not fit.
 * A tier that needs approval passes: the service then waits for an approver.
 *
 * @public
 */
export const validateTierPicker: CustomFieldValidator<TierPickerValue> = async (
  value,
  validation,
  context,
) => {
  if (!value?.tier || !value.pool) {
    validation.addError('Choose a GPU tier and pool');
    return;
  }
  const built = requestFromForm(context.formData);
  if (built.missing) {
    validation.addError(
      `Fill in ${built.missing.join(', ')} before choosing a GPU tier`,
    );
    return;
  }
  const gpuApi = context.apiHolder.get(gpuApiRef);
  if (!gpuApi) {
    validation.addError('The GPU plugin is not installed in this app');
    return;
  }
  let problem: string | undefined;
  try {
    problem = problemWith(value, await gpuApi.quote(built.request));
  } catch (error) {
    problem = `Could not check the GPU tier: ${errorMessage(error, {
      withStatus: false,
    })}`;
  }
  if (problem) {
    validation.addError(problem);
  }
};
