import { ApiHolder } from '@backstage/core-plugin-api';
import { createFieldValidation } from '@backstage/plugin-scaffolder-react/alpha';
import { gpuApiRef } from '../../api';
import { llamaForm, quotingApi } from './__testUtils__/demoQuotes';
import { TierPickerValue } from './types';
import { validateTierPicker } from './validateTierPicker';

function holder(api: unknown): ApiHolder {
  return { get: ref => (ref.id === gpuApiRef.id ? (api as any) : undefined) };
}

async function errorsFor(
  value: Partial<TierPickerValue> | undefined,
  formData: Record<string, unknown>,
  api: unknown = quotingApi().api,
): Promise<string[]> {
  const validation = createFieldValidation();
  await validateTierPicker(value as TierPickerValue, validation, {
    apiHolder: holder(api),
    formData: formData as any,
    schema: {},
  });
  return validation.__errors ?? [];
}

const l4: Partial<TierPickerValue> = {
  tier: 'dedicated',
  pool: 'l4-ondemand',
  slice: '1 x L4',
  gpusPerReplica: 1,
  needsApproval: false,
};

describe('validateTierPicker', () => {
  it('passes an allowed tier, reading only the quote summary', async () => {
    const { api, calls, detailCalls } = quotingApi();
    expect(await errorsFor(l4, llamaForm, api)).toEqual([]);
    expect(calls).toHaveLength(1);
    expect(detailCalls).toHaveLength(0);
  });

  it('passes a tier that needs approval', async () => {
    expect(
      await errorsFor(
        { ...l4, pool: 'spot-l4', needsApproval: true },
        llamaForm,
      ),
    ).toEqual([]);
  });

  it('fails a tier the environment forbids, against a fresh quote of the current inputs', async () => {
    const small = {
      ...llamaForm,
      model: 'llama-3.2-3b',
      dtype: 'int4',
      maxModelLen: 4096,
      concurrency: 4,
    };
    const mps: Partial<TierPickerValue> = {
      tier: 'mps',
      pool: 'l4-mps',
      slice: 'a 1/4 MPS share of an L4',
      gpusPerReplica: 1,
      needsApproval: false,
    };
    expect(await errorsFor(mps, { ...small, environment: 'dev' })).toEqual([]);
    expect(
      await errorsFor(mps, { ...small, environment: 'production' }),
    ).toEqual([
      'The mps tier on pool l4-mps is not allowed: Environment production does not allow the mps tier; allowed: dedicated or mig',
    ]);
  });

  it('fails a tier the model does not fit, and one nothing offers', async () => {
    const [notFit] = await errorsFor(
      {
        tier: 'time-sliced',
        pool: 't4-timeslice',
        slice: '',
        gpusPerReplica: 1,
        needsApproval: false,
      },
      llamaForm,
    );
    expect(notFit).toMatch(
      /^The time-sliced tier on pool t4-timeslice cannot run this model: needs .* GB but a 1\/4 time-sliced share of a T4 gives 3.8 GB$/,
    );
    expect(await errorsFor({ ...l4, pool: 'nowhere' }, llamaForm)).toEqual([
      'The dedicated tier on pool nowhere is not offered for this service; choose one of the listed tiers',
    ]);
  });

  it('fails without a choice, without the inputs, or when the quote fails', async () => {
    expect(await errorsFor(undefined, llamaForm)).toEqual([
      'Choose a GPU tier and pool',
    ]);
    expect(await errorsFor(l4, { ...llamaForm, model: undefined })).toEqual([
      'Fill in model before choosing a GPU tier',
    ]);
    expect(
      await errorsFor(l4, llamaForm, {
        quoteSummary: () => Promise.reject(new Error('Service Unavailable')),
      }),
    ).toEqual(['Could not check the GPU tier: Service Unavailable']);
    expect(await errorsFor(l4, { ...llamaForm, maxModelLen: 200000 })).toEqual([
      'Could not check the GPU tier: maxModelLen 200000 exceeds the context of llama-3.1-8b; allowed: 1 to 131072',
    ]);
  });
});
