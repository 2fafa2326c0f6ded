import type { Config } from '@backstage/config';
import { readDurationFromConfig } from '@backstage/config';
import { InputError } from '@backstage/errors';
import {
  PLATFORM_PARTS,
  PlatformPart,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { durationToMilliseconds, HumanDuration } from '@backstage/types';

/** How often the reconciler runs when `gpu.reconcile.frequency` is not set. */
export const DEFAULT_RECONCILE_FREQUENCY: HumanDuration = { minutes: 10 };

/** `gpu.reconcile`, parsed. */
export interface ReconcileSettings {
  frequency: HumanDuration;
  /** The parts the reconciler delivers, in {@link PLATFORM_PARTS} order; all of them unless configured. */
  deliver: PlatformPart[];
}

/** Reads `gpu.reconcile`; throws `InputError` naming the key on a bad value. */
export function readReconcileSettings(config: Config): ReconcileSettings {
  let frequency = DEFAULT_RECONCILE_FREQUENCY;
  if (config.has('gpu.reconcile.frequency')) {
    frequency = readDurationFromConfig(config, {
      key: 'gpu.reconcile.frequency',
    });
    if (durationToMilliseconds(frequency) <= 0) {
      throw new InputError(
        'Invalid config at gpu.reconcile.frequency: must be longer than zero',
      );
    }
  }
  const listed = config.getOptionalStringArray('gpu.reconcile.deliver');
  if (!listed) {
    return { frequency, deliver: [...PLATFORM_PARTS] };
  }
  const unknown = listed.filter(
    part => !(PLATFORM_PARTS as readonly string[]).includes(part),
  );
  if (unknown.length > 0) {
    throw new InputError(
      `Invalid config at gpu.reconcile.deliver: unknown part${
        unknown.length === 1 ? '' : 's'
      } ${unknown.join(', ')}; the parts are ${PLATFORM_PARTS.join(', ')}`,
    );
  }
  return {
    frequency,
    deliver: PLATFORM_PARTS.filter(part => listed.includes(part)),
  };
}
