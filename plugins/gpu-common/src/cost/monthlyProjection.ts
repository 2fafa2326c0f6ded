import { InputError } from '@backstage/errors';
import { UsdMicros } from './money';
import { scaleUsd } from './scaleUsd';

/**
 * Hours in a billing month when the platform sets none (365 x 24 / 12).
 *
 * @public
 */
export const DEFAULT_HOURS_PER_MONTH = 730;

/**
 * Cost of holding something for a whole month: hourly cost x hours per month.
 *
 * @public
 */
export function monthlyCost(
  hourly: UsdMicros,
  hoursPerMonth: number = DEFAULT_HOURS_PER_MONTH,
): UsdMicros {
  return scaleUsd(hourly, [hoursPerMonth]);
}

/**
 * Projects a month-to-date cost to the whole month by the elapsed fraction:
 * `monthToDate x hoursPerMonth / elapsedHours`. With no time elapsed yet there is nothing to project from and the result is 0.
 *
 * @throws InputError when elapsedHours is negative or above hoursPerMonth.
 * @public
 */
export function projectMonthlyCost(options: {
  monthToDate: UsdMicros;
  elapsedHours: number;
  hoursPerMonth?: number;
}): UsdMicros {
  const { monthToDate, elapsedHours } = options;
  const hoursPerMonth = options.hoursPerMonth ?? DEFAULT_HOURS_PER_MONTH;
  if (!(elapsedHours >= 0 && elapsedHours <= hoursPerMonth)) {
    throw new InputError(
      `Invalid elapsed time ${elapsedHours} h: expected 0 to ${hoursPerMonth} hours of the month`,
    );
  }
  if (elapsedHours === 0) {
    return 0;
  }
  return scaleUsd(monthToDate, [hoursPerMonth], [elapsedHours]);
}
