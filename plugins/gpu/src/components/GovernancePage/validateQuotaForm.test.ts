import { validateQuotaForm } from './validateQuotaForm';

describe('validateQuotaForm', () => {
  it('turns typed values into the PUT body, leaving empty pools out', () => {
    expect(
      validateQuotaForm({
        pools: {
          'l4-ondemand': '2',
          'a100-mig': ' 0.25 ',
          h100: '',
          'spot-l4': '0',
        },
        monthlyBudget: '$4,000.50',
      }),
    ).toEqual({
      ok: true,
      body: {
        pools: { 'l4-ondemand': 2, 'a100-mig': 0.25, 'spot-l4': 0 },
        monthlyBudget: '4000.50',
      },
    });
  });

  it('names every invalid field', () => {
    const result = validateQuotaForm({
      pools: { a: '-1', b: 'two', c: '1.23456', d: '100001', e: '100000' },
      monthlyBudget: '12.345',
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(Object.keys(result.errors).sort()).toEqual([
      'monthlyBudget',
      'pools.a',
      'pools.b',
      'pools.c',
      'pools.d',
    ]);
    expect(result.errors['pools.d']).toMatch(/100,000/);
    expect(result.errors.monthlyBudget).toMatch(/dollars and cents/);
  });

  it('requires a budget and caps it', () => {
    const empty = validateQuotaForm({ pools: {}, monthlyBudget: ' ' });
    expect(empty).toEqual({
      ok: false,
      errors: { monthlyBudget: expect.stringMatching(/0 for none/) },
    });
    const huge = validateQuotaForm({ pools: {}, monthlyBudget: '1000000001' });
    expect(huge.ok).toBe(false);
    expect(validateQuotaForm({ pools: {}, monthlyBudget: '0' }).ok).toBe(true);
  });
});
