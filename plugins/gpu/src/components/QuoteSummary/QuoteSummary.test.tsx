import {
  renderInTestApp,
  TestApiProvider,
} from '@backstage/frontend-test-utils';
import { FieldExtensionComponentProps } from '@backstage/plugin-scaffolder-react';
import { formatUsd } from '@gpu-platform/backstage-plugin-gpu-common';
import { screen, waitFor } from '@testing-library/react';
import { gpuApiRef } from '../../api';
import { textContrastOnWhite } from '../../__testUtils__/contrast';
import {
  demoQuote,
  llamaForm,
  quotingApi,
} from '../TierPicker/__testUtils__/demoQuotes';
import { requestFromForm } from '../TierPicker/requestFromForm';
import { QuoteSummary } from './QuoteSummary';

type Form = Record<string, unknown>;

async function renderSummary(form: Form) {
  const { api, detailCalls: calls } = quotingApi();
  const harness = (data: Form) => (
    <TestApiProvider apis={[[gpuApiRef, api]]}>
      <QuoteSummary
        {...({
          formData: undefined,
          onChange: () => {},
          formContext: { formData: data },
          schema: { title: 'Fit and cost' },
          uiSchema: {},
          idSchema: { $id: 'root_sizingQuote' },
          rawErrors: [],
        } as unknown as FieldExtensionComponentProps<unknown>)}
      />
    </TestApiProvider>
  );
  const rendered = await renderInTestApp(harness(form));
  return {
    calls,
    rerenderForm: (data: Form) => rendered.rerender(harness(data)),
  };
}

jest.setTimeout(30_000);

describe('QuoteSummary', () => {
  it('summarises the fit and the recommendation’s cost, and follows the inputs as they change', async () => {
    const { calls, rerenderForm } = await renderSummary(llamaForm);
    const recommended = await screen.findByTestId('quote-summary-recommended');
    expect(recommended).toHaveTextContent(
      'Recommended: Dedicated on l4-ondemand, 1 x L4 per replica,',
    );
    expect(recommended).toHaveTextContent('$587.50 a month (1 replica)');
    expect(recommended).toHaveTextContent(/per 1K output tokens \(estimate\)/);
    expect(screen.getByTestId('quote-summary-fit')).toHaveTextContent(
      /^Fits \d+ of \d+ tiers and pools\.$/,
    );
    expect(screen.getByTestId('quote-summary')).toHaveTextContent(
      "A month is 730 h (the platform's billing month",
    );

    rerenderForm({ ...llamaForm, dtype: 'int4', replicas: 2 });
    const int4 = demoQuote(
      requestFromForm({ ...llamaForm, dtype: 'int4', replicas: 2 }).request,
    ).recommended!;
    await waitFor(() =>
      expect(screen.getByTestId('quote-summary-recommended')).toHaveTextContent(
        `${formatUsd(int4.cost.monthly)} a month (2 replicas x ${formatUsd(
          int4.cost.monthly / 2,
        )})`,
      ),
    );
    expect(calls.map(c => c.request.dtype)).toEqual([undefined, 'int4']);
  });

  it('asks for what is missing, and shows the backend’s message for an input it rejects', async () => {
    const { calls, rerenderForm } = await renderSummary({
      ...llamaForm,
      model: undefined,
    });
    expect(screen.getByTestId('quote-summary')).toHaveTextContent(
      'Fill in model to see what fits and what it costs.',
    );
    expect(calls).toHaveLength(0);

    rerenderForm({ ...llamaForm, maxModelLen: 200000 });
    expect(
      await screen.findByText(
        /maxModelLen 200000 exceeds the context of llama-3.1-8b/,
      ),
    ).toBeInTheDocument();
    expect(
      screen.queryByTestId('quote-summary-recommended'),
    ).not.toBeInTheDocument();
  });

  it('says a precision the runtime has no checkpoint in, in a red readable on white (4.5:1)', async () => {
    await renderSummary({ ...llamaForm, runtime: 'ollama', dtype: 'bf16' });
    const missing = await screen.findByText(
      /^No bf16 checkpoint of this model/,
    );
    expect(textContrastOnWhite(missing)).toBeGreaterThanOrEqual(4.5);
  });
});
