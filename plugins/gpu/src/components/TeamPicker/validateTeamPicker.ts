import { parseEntityRef } from '@backstage/catalog-model';
import { CustomFieldValidator } from '@backstage/plugin-scaffolder-react';
import { gpuApiRef } from '../../api';
import { errorMessage } from '../common';
import { NOT_A_QUOTA_TEAM, teamOption } from './teamOptions';

/**
 * Fails the step unless the owner is a group with GPU quota on some pool among the quotas the user may read
 * (`GET /quotas`). A team whose quota is all held passes: its request waits for approval.
 *
 * @public
 */
export const validateTeamPicker: CustomFieldValidator<string> = async (
  value,
  validation,
  context,
) => {
  if (!value) {
    validation.addError('Choose the owning team');
    return;
  }
  let team: string;
  try {
    const ref = parseEntityRef(value, { defaultKind: 'group' });
    if (ref.kind.toLocaleLowerCase('en-US') !== 'group') {
      validation.addError(`The owner must be a group, not ${value}`);
      return;
    }
    team = ref.name;
  } catch (error) {
    validation.addError(`Invalid owner ${value}: ${errorMessage(error)}`);
    return;
  }
  const gpuApi = context.apiHolder.get(gpuApiRef);
  if (!gpuApi) {
    validation.addError('The GPU plugin is not installed in this app');
    return;
  }
  try {
    const quotas = await gpuApi.listTeamQuotas();
    const { noQuota } = teamOption(
      value,
      team,
      quotas.find(q => q.team === team),
    );
    if (noQuota === NOT_A_QUOTA_TEAM) {
      validation.addError(
        `Team ${team} has no GPU quota you can use: it is not a team of the GPU platform or you are not one of its members; choose another team`,
      );
    } else if (noQuota) {
      validation.addError(
        `Team ${team} has no GPU quota on any pool; ask the platform team for quota or choose another team`,
      );
    }
  } catch (error) {
    validation.addError(
      `Could not check the team's GPU quota: ${errorMessage(error, {
        withStatus: false,
      })}`,
    );
  }
};
