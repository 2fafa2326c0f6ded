import { UsdMicros } from '@gpu-platform/backstage-plugin-gpu-common';
import { FocusRow } from './focusRows';

/** The FOCUS columns of the export, in order. */
export const FOCUS_COLUMNS = [
  'ChargePeriodStart',
  'ChargePeriodEnd',
  'BillingCurrency',
  'BilledCost',
  'EffectiveCost',
  'ChargeCategory',
  'ChargeDescription',
  'ResourceId',
  'ResourceName',
  'ResourceType',
  'ServiceName',
  'ServiceCategory',
  'SubAccountId',
  'SubAccountName',
  'Tags',
] as const;

/**
 * The rows as CSV (RFC 4180: CRLF line ends, fields with a comma, quote or line break quoted): a header of
 * {@link FOCUS_COLUMNS}, then one line per row. Costs are exact decimal US dollars with six decimals (the
 * micro-dollars themselves), so a spreadsheet's sum of a column is the sum of the books; Tags is a JSON object.
 */
export function focusCsv(rows: readonly FocusRow[]): string {
  const lines = [FOCUS_COLUMNS.join(',')];
  for (const row of rows) {
    const cost = microsToDecimal(row.costMicros);
    const fields: Record<(typeof FOCUS_COLUMNS)[number], string> = {
      ChargePeriodStart: row.chargePeriodStart,
      ChargePeriodEnd: row.chargePeriodEnd,
      BillingCurrency: 'USD',
      BilledCost: cost,
      EffectiveCost: cost,
      ChargeCategory: 'Usage',
      ChargeDescription: row.chargeDescription,
      ResourceId: row.resourceId,
      ResourceName: row.resourceName,
      ResourceType: row.resourceType,
      ServiceName:
        row.resourceType === 'GPU batch job'
          ? 'GPU batch jobs'
          : 'GPU model services',
      ServiceCategory: 'AI and Machine Learning',
      SubAccountId: row.team ?? '',
      SubAccountName: row.team ?? '',
      Tags: JSON.stringify(row.tags),
    };
    lines.push(FOCUS_COLUMNS.map(column => field(fields[column])).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** Micro-dollars as an exact decimal: 1234567 is `1.234567`, -5 is `-0.000005`. */
export function microsToDecimal(micros: UsdMicros): string {
  const sign = micros < 0 ? '-' : '';
  const digits = String(Math.abs(micros)).padStart(7, '0');
  return `${sign}${digits.slice(0, -6)}.${digits.slice(-6)}`;
}

function field(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}
