import { Config } from '@backstage/config';
import {
  DEFAULT_POOL_CAPACITY_POLICY,
  PoolCapacityPolicy,
} from '@gpu-platform/backstage-plugin-gpu-common';

const POLICIES: readonly PoolCapacityPolicy[] = ['refuse', 'approval'];

/**
 * `gpu.admission.whenOverPoolCapacity`: what happens to a request within quota but beyond its pool's free capacity
 * (default `approval`). Read once at startup; a value other than `refuse` or `approval` stops the backend.
 */
export function readPoolCapacityPolicy(config: Config): PoolCapacityPolicy {
  const value = config.getOptionalString('gpu.admission.whenOverPoolCapacity');
  if (value === undefined) return DEFAULT_POOL_CAPACITY_POLICY;
  if (!(POLICIES as readonly string[]).includes(value)) {
    throw new Error(
      `Invalid gpu.admission.whenOverPoolCapacity '${value}': must be 'refuse' (answer 409, reserve nothing) or ` +
        `'approval' (wait for an approver)`,
    );
  }
  return value as PoolCapacityPolicy;
}
