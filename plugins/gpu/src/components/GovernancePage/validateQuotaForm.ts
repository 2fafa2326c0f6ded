import {
  MICROS_PER_USD,
  parseUsd,
  PutTeamQuotaBody,
} from '@gpu-platform/backstage-plugin-gpu-common';

/** The quota dialog's fields as typed: GPU-equivalents per pool and the monthly budget in USD. */
export interface QuotaFormValues {
  pools: Record<string, string>;
  monthlyBudget: string;
}

/** Either the body to send or a message per invalid field (`pools.<name>` or `monthlyBudget`). */
export type QuotaFormResult =
  | { ok: true; body: PutTeamQuotaBody }
  | { ok: false; errors: Record<string, string> };

/** Highest quota per pool the backend accepts. */
export const MAX_POOL_QUOTA = 100_000;
/** Highest monthly budget offered in the form (the backend's exact range ends near 9 billion USD). */
export const MAX_MONTHLY_BUDGET_USD = 1_000_000_000;

const GPU_AMOUNT = /^\d+(\.\d{1,4})?$/;
const USD_AMOUNT = /^\d+(\.\d{1,2})?$/;

/**
 * Checks the quota dialog before anything is sent: every pool a number of GPU-equivalents from 0 to 100,000 with at
 * most four decimals (an empty field means no quota in that pool), the budget whole dollars and cents from 0 up.
 */
export function validateQuotaForm(values: QuotaFormValues): QuotaFormResult {
  const errors: Record<string, string> = {};
  const pools: Record<string, number> = {};
  for (const [pool, raw] of Object.entries(values.pools)) {
    const text = raw.trim();
    if (text === '') continue;
    if (!GPU_AMOUNT.test(text)) {
      errors[`pools.${pool}`] =
        'Enter GPU-equivalents as a number such as 2 or 0.25 (at most 4 decimals, not negative)';
      continue;
    }
    const value = Number(text);
    if (value > MAX_POOL_QUOTA) {
      errors[`pools.${pool}`] = `At most ${MAX_POOL_QUOTA.toLocaleString(
        'en-US',
      )} GPU-equivalents`;
      continue;
    }
    pools[pool] = value;
  }

  const budget = values.monthlyBudget
    .trim()
    .replace(/^\$/, '')
    .replace(/,/g, '');
  if (budget === '') {
    errors.monthlyBudget = 'Enter a monthly budget in USD (0 for none)';
  } else if (!USD_AMOUNT.test(budget)) {
    errors.monthlyBudget = 'Enter dollars and cents such as 4000 or 1250.50';
  } else if (parseUsd(budget) > MAX_MONTHLY_BUDGET_USD * MICROS_PER_USD) {
    errors.monthlyBudget = `At most $${MAX_MONTHLY_BUDGET_USD.toLocaleString(
      'en-US',
    )} per month`;
  }

  if (Object.keys(errors).length > 0) {
    return { ok: false, errors };
  }
  return { ok: true, body: { pools, monthlyBudget: budget } };
}
