import { CustomFieldValidator } from '@backstage/plugin-scaffolder-react';
import { gpuApiRef } from '../../api';
import { errorMessage } from '../common';
import { requestFromForm } from './requestFromForm';
import {
  choiceKey,
  problemWith,
  standingInQuote,
  unavailableQuotedDtype,
} from './tierChoices';
import { TierPickerValue } from './types';

/**
 * Fails the step when the chosen tier and pool cannot be submitted: quotes the form's current inputs again (the
 * picker's last quote may be stale; the summary, a few KB) and rejects a tier the environment forbids or a pool the
 * model does not fit, with the reasons of the full quote narrowed to that tier and pool. A tier that needs approval
 * passes: the service then waits for an approver.
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
    const summary = await gpuApi.quoteSummary(built.request);
    const key = choiceKey(value);
    const row = summary.choices.find(c => choiceKey(c) === key);
    const offered =
      !!row || summary.unavailable.some(u => choiceKey(u) === key);
    const dtype = unavailableQuotedDtype(summary);
    problem =
      !dtype &&
      offered &&
      row?.verdict !== 'allowed' &&
      row?.verdict !== 'needs-approval'
        ? problemWith(
            value,
            undefined,
            // The whole quote: a request naming a tier its environment forbids is refused, so it cannot be narrowed.
            standingInQuote(await gpuApi.quote(built.request), value),
          )
        : problemWith(value, dtype, row && { option: row });
  } catch (error) {
    problem = `Could not check the GPU tier: ${errorMessage(error, {
      withStatus: false,
    })}`;
  }
  if (problem) {
    validation.addError(problem);
  }
};
