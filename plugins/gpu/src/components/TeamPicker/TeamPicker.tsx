import { useApi } from '@backstage/frontend-plugin-api';
import { catalogApiRef } from '@backstage/plugin-catalog-react';
import { FieldExtensionComponentProps } from '@backstage/plugin-scaffolder-react';
import { WarningPanel } from '@backstage/core-components';
import FormHelperText from '@material-ui/core/FormHelperText';
import TextField from '@material-ui/core/TextField';
import useAsync from 'react-use/esm/useAsync';
import { errorMessage, usePlatform } from '../common';
import { quotaText, teamOptions } from './teamOptions';

/**
 * The `GpuTeamPicker` scaffolder field: the owning team, from the catalog's groups. Teams the platform gives no GPU
 * quota on any pool are listed as such and cannot be chosen; the chosen team's quota is shown under the field.
 * Stores the group's entity ref, like the scaffolder's OwnerPicker.
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
  const platform = usePlatform();
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
  const options =
    groups.value && platform.value
      ? teamOptions(groups.value, platform.value.platform)
      : [];
  const chosen = options.find(o => o.ref === formData);
  const loadError = groups.error ?? platform.error;
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
            ? `GPU quota: ${quotaText(chosen)}`
            : schema.description ??
              'Teams without GPU quota cannot own a GPU service'
        }
      >
        <option value="">
          {groups.loading || platform.loading
            ? 'Loading teams…'
            : 'Choose a team'}
        </option>
        {options.map(option => (
          <option
            key={option.ref}
            value={option.ref}
            disabled={option.quota.length === 0}
          >
            {option.quota.length === 0
              ? `${option.name} (no GPU quota)`
              : option.name}
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
