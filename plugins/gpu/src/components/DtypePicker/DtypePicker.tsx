import { FieldExtensionComponentProps } from '@backstage/plugin-scaffolder-react';
import FormHelperText from '@material-ui/core/FormHelperText';
import TextField from '@material-ui/core/TextField';
import { useEffect, useState } from 'react';
import {
  DTYPES,
  Runtime,
  RUNTIMES,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { errorMessage, usePlatform } from '../common';
import { dtypeChoices, dtypeFor } from './dtypeChoices';

const RUNTIME_NAMES: Record<Runtime, string> = {
  vllm: 'vLLM',
  ollama: 'Ollama',
};

/** What the field switched away from when the runtime or model could not serve it. */
interface Switch {
  from: string;
  to: string;
  runtime: Runtime;
}

/**
 * The `GpuDtypePicker` scaffolder field: the weight precision, offering only the dtypes the form's runtime serves the
 * form's model in, from the platform's model catalogue (`GET /platform`). Ollama serves GGUF tags (fp16, q8_0,
 * q4_K_M) and vLLM the base repository (bf16, fp16), fp8 quantised on load and any published quantised repository.
 * When the runtime or model changes and cannot serve the held precision, the field switches to the catalogue's
 * default for the pair (`defaultDtypeFor`) and says so. Reads `model` and `runtime` from the form.
 *
 * @public
 */
export function DtypePicker(props: FieldExtensionComponentProps<string>) {
  const {
    formData,
    onChange,
    schema,
    idSchema,
    required,
    disabled,
    readonly,
    rawErrors,
    formContext,
  } = props;
  const form =
    (formContext as { formData?: Record<string, unknown> } | undefined)
      ?.formData ?? {};
  const platform = usePlatform();
  const runtime = RUNTIMES.find(r => r === form.runtime);
  const modelName = typeof form.model === 'string' ? form.model : undefined;
  const model = modelName
    ? platform.value?.platform.models[modelName]
    : undefined;
  const choices = model && runtime ? dtypeChoices(model, runtime) : undefined;
  const target =
    model && runtime ? dtypeFor(model, runtime, formData) : undefined;
  const [switched, setSwitched] = useState<Switch | undefined>();

  useEffect(() => {
    if (target && runtime && target !== formData) {
      setSwitched(
        formData ? { from: formData, to: target, runtime } : undefined,
      );
      onChange(target);
    }
  }, [target, runtime, formData, onChange]);

  const chosen = choices?.find(c => c.dtype === formData);
  const errors = rawErrors?.filter(Boolean) ?? [];
  const id = idSchema?.$id ?? 'gpu-dtype';
  // Until the catalogue answers (or when it cannot), every dtype the API knows; the quote then says which one fails.
  const options =
    choices ?? DTYPES.map(dtype => ({ dtype, label: dtype, loads: '' }));

  let note: string | undefined;
  if (platform.error) {
    note = `The model catalogue could not be read: ${errorMessage(
      platform.error,
    )}`;
  } else if (platform.value && modelName && !model) {
    note = `The model catalogue has no ${modelName}`;
  } else if (switched && switched.to === formData) {
    note = `${RUNTIME_NAMES[switched.runtime]} serves no ${
      switched.from
    } of this model: ${switched.to} chosen`;
  }

  return (
    <>
      <TextField
        id={id}
        select
        fullWidth
        margin="normal"
        variant="outlined"
        label={schema.title ?? 'Precision / quantisation'}
        required={required}
        disabled={disabled || readonly || platform.loading}
        error={errors.length > 0}
        value={formData ?? ''}
        onChange={event => {
          setSwitched(undefined);
          onChange(event.target.value || undefined);
        }}
        SelectProps={{ native: true }}
        InputLabelProps={{ shrink: true }}
        helperText={schema.description}
      >
        {!formData && <option value="" aria-label="None" />}
        {options.map(o => (
          <option key={o.dtype} value={o.dtype}>
            {o.label}
          </option>
        ))}
      </TextField>
      {(note || chosen) && (
        <FormHelperText role="status">
          {[note, chosen && `Loads the ${chosen.loads}`]
            .filter(Boolean)
            .join('. ')}
        </FormHelperText>
      )}
      {errors.map(e => (
        <FormHelperText key={e} error>
          {e}
        </FormHelperText>
      ))}
    </>
  );
}
