import { identityApiRef, useApi } from '@backstage/frontend-plugin-api';
import { catalogApiRef } from '@backstage/plugin-catalog-react';
import { FieldExtensionComponentProps } from '@backstage/plugin-scaffolder-react';
import { WarningPanel } from '@backstage/core-components';
import FormHelperText from '@material-ui/core/FormHelperText';
import TextField from '@material-ui/core/TextField';
import useAsync from 'react-use/esm/useAsync';
import { gpuApiRef } from '../../api';
import { errorMessage } from '../common';
import { optionLabel, quotaText, teamOptions } from './teamOptions';

/**
 * The `GpuTeamPicker` scaffolder field: the owning team, from the catalog's groups the user is a member of (the
 * identity's ownership refs), with each team's quota from one
 * `GET /quotas` (what the caller may read of every team's quota and what is held). Teams without GPU quota on any
 * pool, or whose quota the caller cannot read, are listed as such with the reason and cannot be chosen; a team whose
 * quota is all held says so (a new service waits for approval); the chosen team's quota left per pool is shown under
 * the field. Stores the group's entity ref, like the scaffolder's OwnerPicker.
 *
 * @public
 */
export function TeamPicker(props: FieldExtensionComponentProps<string>) {
  const {
    formData,
    onChange,
    schema,
    idSchema,
    required,
    disabled,
    readonly,
    rawErrors,
  } = props;
  const catalogApi = useApi(catalogApiRef);
  const gpuApi = useApi(gpuApiRef);
  const quotas = useAsync(() => gpuApi.listTeamQuotas(), [gpuApi]);
  const groups = useAsync(
    async () =>
      (
        await catalogApi.getEntities({
          filter: { kind: 'Group' },
          fields: ['kind', 'metadata.name', 'metadata.namespace'],
        })
      ).items,
    [catalogApi],
  );
  const identityApi = useApi(identityApiRef);
  const memberOf = useAsync(
    async () => (await identityApi.getBackstageIdentity()).ownershipEntityRefs,
    [identityApi],
  );
  const options =
    groups.value && quotas.value && memberOf.value
      ? teamOptions(groups.value, quotas.value, memberOf.value)
      : [];
  const chosen = options.find(o => o.ref === formData);
  const loadError = groups.error ?? quotas.error ?? memberOf.error;
  const errors = rawErrors?.filter(Boolean) ?? [];
  const id = idSchema?.$id ?? 'gpu-team';

  return (
    <>
      <TextField
        id={id}
        select
        fullWidth
        margin="normal"
        variant="outlined"
        label={schema.title ?? 'Owning team'}
        required={required}
        disabled={disabled || readonly || options.length === 0}
        error={errors.length > 0}
        value={formData ?? ''}
        onChange={event => onChange(event.target.value || undefined)}
        SelectProps={{ native: true }}
        InputLabelProps={{ shrink: true }}
        helperText={
          chosen
            ? quotaText(chosen)
            : schema.description ??
              'Teams without GPU quota cannot own a GPU service'
        }
      >
        <option value="">
          {groups.loading || quotas.loading || memberOf.loading
            ? 'Loading teams…'
            : 'Choose a team'}
        </option>
        {options.map(option => (
          <option
            key={option.ref}
            value={option.ref}
            disabled={option.noQuota !== undefined}
          >
            {optionLabel(option)}
          </option>
        ))}
      </TextField>
      {loadError && (
        <WarningPanel
          severity="error"
          title="Could not list the teams"
          message={errorMessage(loadError, { withStatus: false })}
          defaultExpanded
        />
      )}
      {errors.map(message => (
        <FormHelperText key={message} error>
          {message}
        </FormHelperText>
      ))}
    </>
  );
}
