import { InputError } from '@backstage/errors';
import {
  AdmissionPolicy,
  Amounts,
  ReservationRecord,
  ReservationRequest,
} from './types';
import { checkMicros, toGpuUnits } from './units';

/** Validates a reservation request and converts it to stored units. */
export function checkReservation(reservation: ReservationRequest): Amounts {
  const gpuUnits = toGpuUnits(
    reservation.gpuEquivalents,
    'reservation.gpuEquivalents',
  );
  if (gpuUnits < 1) {
    throw new InputError(
      `reservation.gpuEquivalents must be greater than zero; got ${reservation.gpuEquivalents}`,
    );
  }
  return {
    gpuUnits,
    monthlyCostMicros: checkMicros(
      reservation.monthlyCostMicros,
      'reservation.monthlyCostMicros',
    ),
  };
}

/** The stored amounts of an existing reservation. */
export function amountsOf(reservation: ReservationRecord): Amounts {
  return {
    gpuUnits: toGpuUnits(reservation.gpuEquivalents, 'reservation'),
    monthlyCostMicros: reservation.monthlyCostMicros,
  };
}

/** Throws `InputError` unless the policy is well-formed. */
export function checkPolicy(policy: AdmissionPolicy): void {
  if (
    policy?.whenOverQuota !== 'reject' &&
    policy?.whenOverQuota !== 'require-approval'
  ) {
    throw new InputError(
      `policy.whenOverQuota must be 'reject' or 'require-approval'; got '${policy?.whenOverQuota}'`,
    );
  }
}
