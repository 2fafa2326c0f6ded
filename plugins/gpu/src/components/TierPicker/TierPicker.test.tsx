import {
  renderInTestApp,
  TestApiProvider,
} from '@backstage/frontend-test-utils';
import {
  describeSlice,
  formatGb,
  formatUsd,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { GpuApi, gpuApiRef } from '../../api';
import { demoQuote, llamaForm, quotingApi } from './__testUtils__/demoQuotes';
import { TierPicker } from './TierPicker';
import { TierPickerProps, TierPickerValue } from './types';

type Form = Record<string, unknown>;

/** Renders the field the way the scaffolder's form does: its value in state, the whole form in formContext. */
function Field(props: {
  form: Form;
  initial?: Partial<TierPickerValue>;
  onValue?: (value: TierPickerValue | undefined) => void;
}) {
  // Like RJSF, which hands an object field `{}` before it has a value.
  const [value, setValue] = useState<Partial<TierPickerValue> | undefined>(
    props.initial ?? {},
  );
  const fieldProps = {
    formData: value,
    onChange: (next: TierPickerValue | undefined) => {
      setValue(next);
      props.onValue?.(next);
    },
    formContext: { formData: props.form },
    schema: { title: 'GPU tier' },
    uiSchema: {},
    idSchema: { $id: 'root_placement' },
    rawErrors: [],
    required: true,
  } as unknown as TierPickerProps;
  return <TierPicker {...fieldProps} />;
}

async function renderField(
  api: Pick<GpuApi, 'quote' | 'quoteSummary' | 'getPlatform'>,
  props: Parameters<typeof Field>[0],
) {
  const harness = (form: Form) => (
    <TestApiProvider apis={[[gpuApiRef, api]]}>
      <Field {...props} form={form} />
    </TestApiProvider>
  );
  const rendered = await renderInTestApp(harness(props.form));
  return {
    ...rendered,
    rerenderForm: (form: Form) => rendered.rerender(harness(form)),
  };
}

const row = (key: string) => screen.getByTestId(`tier-choice-${key}`);

describe('TierPicker', () => {
  it('asks for the inputs it still needs instead of quoting', async () => {
    const { api, calls } = quotingApi();
    await renderField(api, { form: { owner: 'group:default/ml-platform' } });
    expect(screen.getByTestId('tier-picker-missing')).toHaveTextContent(
      'Fill in model, runtime, maxModelLen, concurrency, environment',
    );
    await new Promise(resolve => setTimeout(resolve, 400));
    expect(calls).toHaveLength(0);
  });

  it('shows loading, then every tier with the quote’s numbers, and preselects the recommendation', async () => {
    const { api, calls, detailCalls } = quotingApi();
    const onValue = jest.fn();
    await renderField(api, { form: llamaForm, onValue });
    expect(screen.getByTestId('tier-picker-loading')).toBeInTheDocument();

    await waitFor(() =>
      expect(row('dedicated/l4-ondemand')).toBeInTheDocument(),
    );
    expect(screen.queryByTestId('tier-picker-loading')).not.toBeInTheDocument();
    expect(calls[0].request).toEqual({
      name: 'summariser',
      team: 'ml-platform',
      model: 'llama-3.1-8b',
      runtime: 'vllm',
      maxModelLen: 8192,
      concurrency: 16,
      replicas: 1,
      environment: 'dev',
    });
    const expected = demoQuote(calls[0].request);
    const l4 = expected.options.find(o => o.slice.pool === 'l4-ondemand')!;

    const l4Row = within(row('dedicated/l4-ondemand'));
    expect(
      l4Row.getByText(`Fits · ${formatGb(l4.headroomBytes)} headroom`),
    ).toBeInTheDocument();
    expect(l4Row.getByText(formatUsd(l4.cost.monthly))).toBeInTheDocument();
    expect(
      l4Row.getByText(
        formatUsd(l4.cost.costPerThousandTokens!, { decimals: 6 }),
      ),
    ).toBeInTheDocument();
    // The chosen row's token prices and their basis, once, under the table: from its full quote, narrowed to it.
    expect(
      within(
        await screen.findByTestId('tier-picker-choice-details'),
      ).getByTestId('tier-choice-throughput-basis'),
    ).toHaveTextContent(
      /^Estimate: [\d,]+ tokens\/s capacity from memory bandwidth, fully used;/,
    );
    expect(screen.getAllByTestId('tier-choice-throughput-basis')).toHaveLength(
      1,
    );
    expect(detailCalls.map(c => c.request)).toEqual([
      { ...calls[0].request, tier: 'dedicated', pool: 'l4-ondemand' },
    ]);
    expect(l4Row.getByText('Full')).toBeInTheDocument();
    expect(
      l4Row.getByText(`${l4.quota.remaining} of ${l4.quota.nominal} left`),
    ).toBeInTheDocument();
    expect(l4Row.getByText('Allowed')).toBeInTheDocument();
    expect(l4Row.getByText('Recommended')).toBeInTheDocument();
    expect(expected.recommendation?.reason).toBe('lowest-price');
    expect(
      screen.getByTestId('tier-picker-recommendation-reason'),
    ).toHaveTextContent(
      'Recommended: Dedicated on l4-ondemand, because it is the cheapest option allowed without approval.',
    );

    const mig = expected.options.find(o => o.slice.tier === 'mig')!;
    const migRow = within(row(`mig/${mig.slice.pool}`));
    expect(
      migRow.getByText(`${describeSlice(mig.slice)} per replica`),
    ).toBeInTheDocument();
    expect(migRow.getByText(formatUsd(mig.cost.monthly))).toBeInTheDocument();
    expect(migRow.getByText('Hardware')).toBeInTheDocument();

    expect(expected.recommended?.slice.pool).toBe('l4-ondemand');
    await waitFor(() =>
      expect(onValue).toHaveBeenLastCalledWith({
        tier: 'dedicated',
        pool: 'l4-ondemand',
        slice: '1 x L4',
        gpusPerReplica: 1,
        needsApproval: false,
        chosenBy: 'recommendation',
        recommendedWhenChosen: true,
        summary: 'Dedicated on l4-ondemand: 1 x L4 per replica',
        cost: '$587.50 a month: 1 replica (a month of 730 h)',
        approval: 'Not needed: allowed in dev',
      }),
    );
    expect(l4Row.getByRole('radio')).toBeChecked();
  });

  it('reads the quote summary for the table and the full quote of the one row it shows in detail', async () => {
    const { api, calls, detailCalls } = quotingApi();
    const onValue = jest.fn();
    await renderField(api, { form: llamaForm, onValue });
    await screen.findByTestId('tier-choice-throughput-basis');
    expect(calls).toHaveLength(1);
    expect(detailCalls).toHaveLength(1);
    const whole = JSON.stringify(demoQuote(calls[0].request)).length;
    expect(calls[0].bytes! + detailCalls[0].bytes!).toBeLessThan(whole / 2);

    // Picking another row fetches that row's full quote; its reasons are said in the row and in the value.
    const spotRow = within(row('dedicated/spot-l4'));
    await userEvent.click(spotRow.getByRole('radio'));
    await waitFor(() => expect(detailCalls).toHaveLength(2));
    expect(detailCalls[1].request).toEqual({
      ...calls[0].request,
      tier: 'dedicated',
      pool: 'spot-l4',
    });
    expect(
      await spotRow.findByText(
        'Needs 1 GPU-equivalent of pool spot-l4; team ml-platform has 0 of 0 left',
      ),
    ).toBeInTheDocument();
    expect(calls).toHaveLength(1);
  });

  it('quotes again, once, after the inputs stop changing, and aborts the stale request', async () => {
    const { api, calls } = quotingApi();
    const { rerenderForm } = await renderField(api, { form: llamaForm });
    await waitFor(() => expect(calls).toHaveLength(1));
    const firstSignal = calls[0].signal!;
    await screen.findByTestId('tier-choice-dedicated/l4-ondemand');
    const headroomBefore = within(row('dedicated/l4-ondemand')).getByText(
      /headroom/,
    ).textContent;

    rerenderForm({ ...llamaForm, maxModelLen: 9000 });
    rerenderForm({ ...llamaForm, maxModelLen: 10000 });
    rerenderForm({ ...llamaForm, maxModelLen: 12000 });
    expect(firstSignal.aborted).toBe(true);

    await waitFor(() => expect(calls).toHaveLength(2));
    expect(calls[1].request.maxModelLen).toBe(12000);
    const expected = demoQuote({ ...calls[1].request });
    const l4 = expected.options.find(o => o.slice.pool === 'l4-ondemand')!;
    await waitFor(() =>
      expect(
        within(row('dedicated/l4-ondemand')).getByText(/headroom/),
      ).toHaveTextContent(`Fits · ${formatGb(l4.headroomBytes)} headroom`),
    );
    expect(headroomBefore).not.toEqual(
      `Fits · ${formatGb(l4.headroomBytes)} headroom`,
    );
  });

  it('says why a tier cannot run the model', async () => {
    const { api, calls } = quotingApi();
    await renderField(api, { form: llamaForm });
    const mpsRow = await screen.findByTestId('tier-choice-mps/l4-mps');
    const expected = demoQuote(calls[0].request);
    const reason = expected.unavailable.find(
      u => u.slice.pool === 'l4-mps',
    )!.reason;
    expect(mpsRow).toHaveTextContent(`Does not fit: ${reason}`);
    expect(within(mpsRow).getByRole('radio')).toBeDisabled();
  });

  it('does not let the user pick a tier the environment forbids, and flags one already chosen', async () => {
    const { api } = quotingApi();
    const form = {
      ...llamaForm,
      model: 'llama-3.2-3b',
      dtype: 'int4',
      maxModelLen: 4096,
      concurrency: 4,
      environment: 'production',
    };
    await renderField(api, {
      form,
      initial: {
        tier: 'mps',
        pool: 'l4-mps',
        slice: 'a 1/4 MPS share of an L4',
        gpusPerReplica: 1,
        needsApproval: false,
      },
    });
    const mpsRow = await screen.findByTestId('tier-choice-mps/l4-mps');
    expect(mpsRow).toHaveTextContent('Not allowed');
    expect(within(mpsRow).getByRole('radio')).toBeDisabled();
    // The chosen row's reasons: its full quote (the whole one, as a request naming a forbidden tier is refused).
    expect(
      await within(mpsRow).findByText(
        /Environment production does not allow the mps tier/,
      ),
    ).toBeInTheDocument();
    expect(
      screen.getByText('Error: This choice cannot be submitted'),
    ).toBeInTheDocument();
    expect(
      screen.getAllByText(/The mps tier on pool l4-mps is not allowed/).length,
    ).toBeGreaterThan(0);
  });

  it('explains approval when the chosen tier is over the team’s quota', async () => {
    const { api } = quotingApi();
    const onValue = jest.fn();
    await renderField(api, { form: llamaForm, onValue });
    const spotRow = await screen.findByTestId('tier-choice-dedicated/spot-l4');
    expect(within(spotRow).getByText('Needs approval')).toBeInTheDocument();
    expect(screen.queryByText(/needs approval$/)).not.toBeInTheDocument();

    await userEvent.click(within(spotRow).getByRole('radio'));
    expect(onValue).toHaveBeenLastCalledWith(
      expect.objectContaining({
        tier: 'dedicated',
        pool: 'spot-l4',
        needsApproval: true,
        chosenBy: 'user',
        recommendedWhenChosen: false,
        approval:
          'Needed before it is deployed: Needs 1 GPU-equivalent of pool spot-l4; team ml-platform has 0 of 0 left',
      }),
    );
    expect(
      screen.getByText('Info: Dedicated on spot-l4 needs approval'),
    ).toBeInTheDocument();
    expect(
      screen.getAllByText(
        /Needs 1 GPU-equivalent of pool spot-l4; team ml-platform has 0 of 0 left/,
      ).length,
    ).toBeGreaterThan(1);
    expect(screen.getByText(/created as pending approval/)).toBeInTheDocument();
  });

  it('shows the backend’s message when the quote fails, and no stale options', async () => {
    const { api } = quotingApi();
    const { rerenderForm } = await renderField(api, { form: llamaForm });
    await screen.findByTestId('tier-choice-dedicated/l4-ondemand');

    rerenderForm({ ...llamaForm, maxModelLen: 200000 });
    expect(
      await screen.findByText('Error: Could not quote this service'),
    ).toBeInTheDocument();
    expect(
      screen.getByText(
        /maxModelLen 200000 exceeds the context of llama-3.1-8b/,
      ),
    ).toBeInTheDocument();
    expect(
      screen.queryByTestId('tier-choice-dedicated/l4-ondemand'),
    ).not.toBeInTheDocument();
  });

  it('says why a precision the catalogue has no checkpoint of cannot run, and lists no tiers', async () => {
    const { api } = quotingApi();
    const { rerenderForm } = await renderField(api, { form: llamaForm });
    // Llama-3.1-8B on vLLM has every precision but fp32, which the form does not offer: nothing is said of it.
    expect(
      await screen.findByTestId('tier-choice-dedicated/l4-ondemand'),
    ).toBeInTheDocument();
    expect(screen.queryByText(/fp32/)).not.toBeInTheDocument();

    rerenderForm({ ...llamaForm, model: 'mistral-7b', dtype: 'int4' });
    expect(
      await screen.findByText(
        'The model catalogue names no int4 Hugging Face checkpoint of mistral-7b for vllm; available: bf16, fp16 or fp8',
      ),
    ).toBeInTheDocument();
    expect(
      screen.getByText('Error: No int4 checkpoint of this model'),
    ).toBeInTheDocument();
    expect(
      screen.queryByTestId('tier-choice-dedicated/l4-ondemand'),
    ).not.toBeInTheDocument();
  });

  it('is a radio group: labelled, one tab stop, arrow keys pick the next row that can be picked', async () => {
    const { api } = quotingApi();
    const onValue = jest.fn();
    await renderField(api, { form: llamaForm, onValue });
    const group = await screen.findByRole('radiogroup', { name: 'GPU tier' });
    await waitFor(() =>
      expect(
        within(row('dedicated/l4-ondemand')).getByRole('radio'),
      ).toBeChecked(),
    );
    const radios = within(group).getAllByRole('radio') as HTMLInputElement[];
    expect(new Set(radios.map(r => r.name)).size).toBe(1);
    const enabled = radios.filter(r => !r.disabled);
    expect(enabled.length).toBeLessThan(radios.length);
    const at = enabled.findIndex(r => r.checked);

    enabled[at].focus();
    await userEvent.keyboard('{ArrowDown}');
    const next = enabled[(at + 1) % enabled.length];
    await waitFor(() => expect(next).toBeChecked());
    expect(next).toHaveFocus();
    expect(onValue).toHaveBeenLastCalledWith(
      expect.objectContaining({
        pool: next.value.split('/')[1],
        chosenBy: 'user',
      }),
    );

    await userEvent.keyboard('{ArrowUp}');
    await waitFor(() => expect(enabled[at]).toBeChecked());
    expect(enabled[at]).toHaveFocus();
    expect(radios[0]).toHaveAccessibleName(
      /^Dedicated on l4-ondemand, recommended$/,
    );
  });

  it('explains the four tiers where the choice is made', async () => {
    const { api } = quotingApi();
    await renderField(api, { form: llamaForm });
    const legend = within(await screen.findByTestId('tier-legend'));
    expect(
      legend
        .getAllByRole('row')
        .slice(1)
        .map(r => r.firstChild?.textContent),
    ).toEqual(['Dedicated', 'MIG', 'MPS', 'Time-sliced']);
    expect(
      legend.getByText(
        /MPS runs the kernels of several processes at once, each within its memory and thread limits/,
      ),
    ).toBeInTheDocument();
    expect(
      legend.getByText(
        /interleaves whole contexts in turns, with no memory isolation/,
      ),
    ).toBeInTheDocument();
    expect(
      legend.getByText(
        'Rule of thumb: dedicated for latency-critical production, MIG for isolated small models, sharing (MPS or time-slicing) for dev and bursty low-traffic work.',
      ),
    ).toBeInTheDocument();
  });

  it('flags spot capacity with what it means for availability', async () => {
    const { api } = quotingApi();
    await renderField(api, { form: llamaForm });
    const spotRow = within(
      await screen.findByTestId('tier-choice-dedicated/spot-l4'),
    );
    expect(spotRow.getByTestId('tier-choice-spot')).toHaveTextContent(
      'Spot: can be reclaimed',
    );
    // The chip in the row; what it means, once, under the table when the spot row is chosen.
    await userEvent.click(spotRow.getByRole('radio'));
    expect(
      await screen.findByTestId('tier-choice-spot-details'),
    ).toHaveTextContent(
      /can be reclaimed with two minutes' notice, so replicas can disappear at any time; production on spot needs approval/,
    );
    expect(spotRow.getByRole('radio')).toHaveAccessibleName(
      'Dedicated on spot-l4, spot capacity',
    );
    expect(
      within(row('dedicated/l4-ondemand')).queryByTestId('tier-choice-spot'),
    ).not.toBeInTheDocument();
  });

  it('says which month the monthly figures count, that they cover every replica, and what each replica gets', async () => {
    const { api, calls } = quotingApi();
    await renderField(api, { form: { ...llamaForm, replicas: 2 } });
    const l4Row = within(
      await screen.findByTestId('tier-choice-dedicated/l4-ondemand'),
    );
    const l4 = demoQuote(calls[0].request).options.find(
      o => o.slice.pool === 'l4-ondemand',
    )!;
    expect(l4Row.getByTestId('tier-choice-monthly')).toHaveTextContent(
      formatUsd(l4.cost.monthly),
    );
    expect(l4Row.getByTestId('tier-choice-per-replica')).toHaveTextContent(
      `2 replicas x ${formatUsd(l4.cost.monthly / 2)}`,
    );
    expect(
      l4Row.getByText('1 x L4 per replica, 2 replicas'),
    ).toBeInTheDocument();
    expect(
      await l4Row.findByTestId('tier-choice-token-basis'),
    ).toHaveTextContent('estimate, at full load');
    expect(
      screen.getByRole('columnheader', { name: 'Monthly, all replicas' }),
    ).toBeInTheDocument();
    expect(
      screen.getByRole('columnheader', { name: 'Per 1K output tokens' }),
    ).toBeInTheDocument();
    // "3 of 4 left" is what the team has left once this request holds its share, in words, not "GPU-eq".
    expect(
      screen.getByRole('columnheader', {
        name: 'Team quota left after this (GPU-equivalents)',
      }),
    ).toHaveAttribute(
      'title',
      'A GPU-equivalent is one whole GPU; a MIG slice or shared GPU counts as its share of one.',
    );
    // ...and said under the table, not only on hover (a title is out of reach of the keyboard and of touch).
    expect(
      screen.getByTestId('tier-picker-gpu-equivalents'),
    ).toHaveTextContent(
      'A GPU-equivalent is one whole GPU; a MIG slice or shared GPU counts as its share of one. Team quota left is what the team keeps once this request holds its share.',
    );
    expect(await screen.findByTestId('tier-picker-month')).toHaveTextContent(
      "A month is 730 h (the platform's billing month, not the calendar month); costs cover every replica.",
    );
  });

  it('prices the scaling chosen in the form at the maximum, and says so', async () => {
    const { api, calls } = quotingApi();
    const onValue = jest.fn();
    await renderField(api, {
      form: {
        ...llamaForm,
        scaling: 'queue',
        autoscaling: { minReplicas: 1, maxReplicas: 4, targetQueueDepth: 2 },
      },
      onValue,
    });
    const l4Row = within(
      await screen.findByTestId('tier-choice-dedicated/l4-ondemand'),
    );
    expect(calls[0].request.autoscaling).toEqual({
      minReplicas: 1,
      maxReplicas: 4,
      targetQueueDepth: 2,
      engine: 'keda',
    });
    expect(l4Row.getByTestId('tier-choice-monthly')).toHaveTextContent(
      '$2,350.02',
    );
    expect(l4Row.getByTestId('tier-choice-per-replica')).toHaveTextContent(
      '4 replicas (maximum) x $587.50',
    );
    // The details under the table are the chosen row's.
    await userEvent.click(l4Row.getByRole('radio'));
    expect(
      await screen.findByTestId('tier-choice-scaling-cost'),
    ).toHaveTextContent(
      "Autoscales from 1 to 4 replicas: priced and reserved at the maximum, 4 replicas ($2,350.02 a month), so every replica it scales to is held in the team's quota.",
    );
    await waitFor(() =>
      expect(onValue).toHaveBeenLastCalledWith(
        expect.objectContaining({
          cost: "$2,350.02 a month: 4 replicas (maximum) x $587.50 (a month of 730 h). Autoscales from 1 to 4 replicas: priced and reserved at the maximum, 4 replicas ($2,350.02 a month), so every replica it scales to is held in the team's quota.",
        }),
      ),
    );
  });

  it('prices scale to zero at the replica that wakes it plus the burst within quota, when the platform says so', async () => {
    const { api } = quotingApi({ autoscaledReplicas: 'minimum-plus-burst' });
    await renderField(api, {
      form: {
        ...llamaForm,
        scaling: 'zero',
        // What the queue branch left in the form is not quoted.
        autoscaling: { minReplicas: 2, maxReplicas: 8, targetQueueDepth: 4 },
        scaleToZero: { minReplicas: 0, maxReplicas: 3, targetQueueDepth: 2 },
      },
    });
    const l4Row = within(
      await screen.findByTestId('tier-choice-dedicated/l4-ondemand'),
    );
    expect(l4Row.getByTestId('tier-choice-monthly')).toHaveTextContent(
      '$587.50',
    );
    expect(l4Row.getByTestId('tier-choice-per-replica')).toHaveTextContent(
      '1 replica (to wake) + 2 burst',
    );
    // ml-platform holds 4 on-demand L4s: after the one reserved, both burst replicas have room.
    await userEvent.click(l4Row.getByRole('radio'));
    expect(
      await screen.findByTestId('tier-choice-scaling-cost'),
    ).toHaveTextContent(
      "Scales to zero when idle, up to 3 replicas: priced and reserved at 1 replica, the one that wakes it ($587.50 a month); up to 2 more run when the queue grows, only while the team's quota has room (2 have room now), adding up to $1,175.01 a month if they ran all month.",
    );
  });

  it('quotes the latency budget the form states on vLLM, as the create step will send it', async () => {
    const { api, calls, detailCalls } = quotingApi();
    await renderField(api, {
      form: { ...llamaForm, latencyBudgetSeconds: 2 },
    });
    // The recommended row is preselected and shown in detail from its full quote.
    await screen.findByTestId('tier-choice-throughput-basis');
    expect(calls[0].request.latencyBudget).toEqual({ p95Seconds: 2 });
    expect(detailCalls.map(c => c.request.latencyBudget)).toEqual([
      { p95Seconds: 2 },
    ]);
  });

  it('says nothing of scaling for fixed replicas', async () => {
    const { api } = quotingApi({ autoscaledReplicas: 'minimum-plus-burst' });
    await renderField(api, { form: { ...llamaForm, scaling: 'fixed' } });
    await screen.findByTestId('tier-picker-choice-details');
    expect(
      screen.queryByTestId('tier-choice-scaling-cost'),
    ).not.toBeInTheDocument();
    expect(
      within(row('dedicated/l4-ondemand')).getByTestId(
        'tier-choice-per-replica',
      ),
    ).toHaveTextContent(/^1 replica$/);
  });
});
