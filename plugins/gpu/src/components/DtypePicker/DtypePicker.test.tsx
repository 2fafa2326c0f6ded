import {
  renderInTestApp,
  TestApiProvider,
} from '@backstage/frontend-test-utils';
import { FieldExtensionComponentProps } from '@backstage/plugin-scaffolder-react';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { gpuApiRef } from '../../api';
import { FakeGpuApi } from '../../__testUtils__/FakeGpuApi';
import { DtypePicker } from './DtypePicker';

jest.setTimeout(30_000);

/** The sizing step: model and runtime as selects beside the precision field, as in the template. */
function Step(props: {
  model: string;
  runtime: string;
  dtype?: string;
  onValue: (value: string | undefined) => void;
}) {
  const [runtime, setRuntime] = useState(props.runtime);
  const [dtype, setDtype] = useState(props.dtype);
  const fieldProps = {
    formData: dtype,
    onChange: (next: string | undefined) => {
      setDtype(next);
      props.onValue(next);
    },
    schema: { title: 'Precision / quantisation' },
    uiSchema: {},
    idSchema: { $id: 'root_dtype' },
    rawErrors: [],
    required: false,
    formContext: { formData: { model: props.model, runtime, dtype } },
  } as unknown as FieldExtensionComponentProps<string>;
  return (
    <>
      <label>
        Runtime
        <select value={runtime} onChange={e => setRuntime(e.target.value)}>
          <option value="vllm">vLLM</option>
          <option value="ollama">Ollama</option>
        </select>
      </label>
      <DtypePicker {...fieldProps} />
    </>
  );
}

async function renderStep(props: Parameters<typeof Step>[0]) {
  await renderInTestApp(
    <TestApiProvider apis={[[gpuApiRef, new FakeGpuApi()]]}>
      <Step {...props} />
    </TestApiProvider>,
  );
  const select = await screen.findByLabelText(/^Precision/);
  await waitFor(() => expect(select).toBeEnabled());
  return select;
}

function optionTexts(select: HTMLElement) {
  return within(select)
    .getAllByRole('option')
    .map(o => o.textContent);
}

describe('DtypePicker', () => {
  it("offers vLLM the catalogue's checkpoints of the model and starts at the model's default", async () => {
    const values: (string | undefined)[] = [];
    const select = await renderStep({
      model: 'llama-3.1-8b',
      runtime: 'vllm',
      onValue: v => values.push(v),
    });
    await waitFor(() => expect(select).toHaveValue('bf16'));
    expect(values).toEqual(['bf16']);
    expect(optionTexts(select)).toEqual([
      'bf16',
      'fp16',
      'fp8 (quantised on load)',
      'int8 (compressed-tensors checkpoint)',
      'int4 (AWQ checkpoint)',
    ]);
    expect(
      screen.getByText(
        'Loads the Hugging Face meta-llama/Llama-3.1-8B-Instruct',
      ),
    ).toBeInTheDocument();
  });

  it('offers vLLM no int8 or int4 of a model without a published quantised repository', async () => {
    const select = await renderStep({
      model: 'mistral-7b',
      runtime: 'vllm',
      dtype: 'int4',
      onValue: () => {},
    });
    await waitFor(() => expect(select).toHaveValue('bf16'));
    expect(optionTexts(select)).toEqual([
      'bf16',
      'fp16',
      'fp8 (quantised on load)',
    ]);
  });

  it('switching to Ollama turns bf16 into fp16, offers only its GGUF tags and says so', async () => {
    const values: (string | undefined)[] = [];
    const select = await renderStep({
      model: 'llama-3.1-8b',
      runtime: 'vllm',
      dtype: 'bf16',
      onValue: v => values.push(v),
    });
    await userEvent.selectOptions(screen.getByLabelText('Runtime'), 'ollama');

    await waitFor(() => expect(select).toHaveValue('fp16'));
    expect(values).toEqual(['fp16']);
    expect(optionTexts(select)).toEqual([
      'fp16 (GGUF f16)',
      'int8 (GGUF q8_0)',
      'int4 (GGUF q4_K_M)',
    ]);
    expect(screen.getByRole('status')).toHaveTextContent(
      'Ollama serves no bf16 of this model: fp16 chosen. Loads the Ollama tag llama3.1:8b-instruct-fp16',
    );

    // The user's own pick clears the note; a precision both runtimes serve is kept when switching back.
    await userEvent.selectOptions(select, 'int4');
    expect(screen.getByRole('status')).toHaveTextContent(
      /^Loads the Ollama tag llama3\.1:8b-instruct-q4_K_M$/,
    );
    await userEvent.selectOptions(screen.getByLabelText('Runtime'), 'vllm');
    await waitFor(() =>
      expect(screen.getByRole('status')).toHaveTextContent(
        /^Loads the Hugging Face hugging-quants\/Meta-Llama-3\.1-8B-Instruct-AWQ-INT4$/,
      ),
    );
    expect(select).toHaveValue('int4');
    expect(values).toEqual(['fp16', 'int4']);
  });

  it('switching to Ollama turns fp8 into fp16', async () => {
    const select = await renderStep({
      model: 'qwen2.5-7b',
      runtime: 'vllm',
      dtype: 'fp8',
      onValue: () => {},
    });
    expect(select).toHaveValue('fp8');
    await userEvent.selectOptions(screen.getByLabelText('Runtime'), 'ollama');
    await waitFor(() => expect(select).toHaveValue('fp16'));
    expect(screen.getByRole('status')).toHaveTextContent(
      'Ollama serves no fp8 of this model: fp16 chosen',
    );
  });
});
