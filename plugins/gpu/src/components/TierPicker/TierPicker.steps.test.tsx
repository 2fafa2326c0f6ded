import { renderInTestApp } from '@backstage/frontend-test-utils';
import { formatUsd } from '@gpu-platform/backstage-plugin-gpu-common';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { demoQuote, llamaForm, quotingApi } from './__testUtils__/demoQuotes';
import { Wizard } from './__testUtils__/Wizard';
import { requestFromForm } from './requestFromForm';
import { TIER_LABELS } from './describeChoice';
import { choiceKey } from './tierChoices';
import { TierPickerValue } from './types';

const row = (key: string) => screen.getByTestId(`tier-choice-${key}`);
const radioOf = (key: string) => within(row(key)).getByRole('radio');

/** The int4 quote of the Llama form: its recommendation is no longer dedicated on l4-ondemand. */
function int4Recommendation() {
  const recommended = demoQuote(
    requestFromForm({ ...llamaForm, dtype: 'int4' }).request,
  ).recommended!;
  expect(choiceKey(recommended.slice)).not.toBe('dedicated/l4-ondemand');
  return recommended;
}

async function renderWizard(onValue: jest.Mock) {
  const { api } = quotingApi();
  await renderInTestApp(
    <Wizard
      api={api}
      form={llamaForm}
      onValue={onValue}
      sizing={(_form, set) => (
        <button onClick={() => set({ dtype: 'int4' })}>Use int4</button>
      )}
    />,
  );
  await waitFor(() => expect(radioOf('dedicated/l4-ondemand')).toBeChecked());
}

async function backToInt4AndNext() {
  await userEvent.click(screen.getByRole('button', { name: 'Back' }));
  await userEvent.click(screen.getByRole('button', { name: 'Use int4' }));
  await userEvent.click(screen.getByRole('button', { name: 'Next' }));
}

function lastValue(onValue: jest.Mock): TierPickerValue {
  return onValue.mock.calls[onValue.mock.calls.length - 1][0];
}

// Each test quotes three times through the 300 ms debounce and re-renders every tier.
jest.setTimeout(30_000);

describe('TierPicker across Back and Next', () => {
  it('moves an automatic choice with the recommendation', async () => {
    const onValue = jest.fn();
    await renderWizard(onValue);
    expect(lastValue(onValue).chosenBy).toBe('recommendation');

    await backToInt4AndNext();
    const recommended = int4Recommendation();
    const key = choiceKey(recommended.slice);
    await waitFor(() => expect(radioOf(key)).toBeChecked());
    expect(within(row(key)).getByText('Recommended')).toBeInTheDocument();
    expect(radioOf('dedicated/l4-ondemand')).not.toBeChecked();
    expect(lastValue(onValue)).toEqual(
      expect.objectContaining({
        tier: recommended.slice.tier,
        pool: recommended.slice.pool,
        chosenBy: 'recommendation',
      }),
    );
    expect(
      screen.queryByTestId('tier-picker-not-recommended'),
    ).not.toBeInTheDocument();
  });

  it('keeps the user’s pick, says it is no longer the recommendation, and can follow it again', async () => {
    const onValue = jest.fn();
    await renderWizard(onValue);
    await userEvent.click(radioOf('dedicated/l4-ondemand'));
    expect(lastValue(onValue)).toEqual(
      expect.objectContaining({
        chosenBy: 'user',
        recommendedWhenChosen: true,
      }),
    );

    await backToInt4AndNext();
    const recommended = int4Recommendation();
    const key = choiceKey(recommended.slice);
    await waitFor(() =>
      expect(within(row(key)).getByText('Recommended')).toBeInTheDocument(),
    );
    expect(radioOf('dedicated/l4-ondemand')).toBeChecked();
    expect(radioOf(key)).not.toBeChecked();
    const notice = await screen.findByTestId('tier-picker-not-recommended');
    expect(notice).toHaveTextContent(
      'Your pick is no longer the recommended tier',
    );
    expect(notice).toHaveTextContent(
      `For these inputs the recommendation is ${
        TIER_LABELS[recommended.slice.tier]
      } on ${recommended.slice.pool} (${formatUsd(
        recommended.cost.monthly,
      )} a month)`,
    );
    // Its text is a paragraph of its own, not one inside the panel's (invalid HTML, React warns of it).
    expect(notice.querySelector('p p')).toBeNull();
    expect(lastValue(onValue).pool).toBe('l4-ondemand');

    await userEvent.click(
      within(notice).getByRole('button', { name: 'Use the recommendation' }),
    );
    await waitFor(() => expect(radioOf(key)).toBeChecked());
    expect(
      screen.queryByTestId('tier-picker-not-recommended'),
    ).not.toBeInTheDocument();
    expect(lastValue(onValue).chosenBy).toBe('recommendation');
  });
});
