import { TestApiProvider } from '@backstage/frontend-test-utils';
import { ReactNode, useState } from 'react';
import { GpuApi, gpuApiRef } from '../../../api';
import { TierPicker } from '../TierPicker';
import { TierPickerProps, TierPickerValue } from '../types';

type Form = Record<string, unknown>;

/**
 * The scaffolder's stepper around the picker: the form's state lives above the steps, the picker's step mounts
 * only while it is shown (Back unmounts it, Next mounts it again with the stored value), and the sizing step edits
 * the same state.
 */
export function Wizard(props: {
  api: Pick<GpuApi, 'quote' | 'quoteSummary' | 'getPlatform'>;
  form: Form;
  /** Rendered on the sizing step with the form state and a setter. */
  sizing?: (form: Form, set: (changes: Form) => void) => ReactNode;
  onValue?: (value: TierPickerValue | undefined) => void;
}) {
  const [form, setForm] = useState<Form>({ ...props.form, placement: {} });
  const [step, setStep] = useState<'sizing' | 'tier'>('tier');
  const set = (changes: Form) =>
    setForm(current => ({ ...current, ...changes }));
  const fieldProps = {
    formData: form.placement,
    onChange: (next: TierPickerValue | undefined) => {
      set({ placement: next });
      props.onValue?.(next);
    },
    formContext: { formData: form },
    schema: { title: 'GPU tier' },
    uiSchema: {},
    idSchema: { $id: 'root_placement' },
    rawErrors: [],
    required: true,
  } as unknown as TierPickerProps;
  return (
    <TestApiProvider apis={[[gpuApiRef, props.api]]}>
      {step === 'tier' ? (
        <>
          <TierPicker {...fieldProps} />
          <button onClick={() => setStep('sizing')}>Back</button>
        </>
      ) : (
        <>
          {props.sizing?.(form, set)}
          <button onClick={() => setStep('tier')}>Next</button>
        </>
      )}
    </TestApiProvider>
  );
}
