import { z } from 'zod';
import { listAllowed } from '../errors';
import { ConfigIssues, ConfigPath } from '../platform/configIssues';
import { Platform } from '../platform/types';
import {
  serviceDefaultsSchema,
  serviceSettingsSchema,
} from './serviceDefaultsSchema';
import { ServiceDefaults, ServiceSettings } from './types';

/**
 * Placeholders a wake query may use; `{{service}}` is required so that one service's traffic wakes only it.
 *
 * @public
 */
export const WAKE_QUERY_PLACEHOLDERS = {
  namespace: '{{namespace}}',
  service: '{{service}}',
} as const;

/** Seconds without requests before KEDA's HTTP add-on scales a service back to zero, by default. */
const DEFAULT_SCALEDOWN_PERIOD_SECONDS = 300;

type RawSettings = z.output<typeof serviceSettingsSchema>;

function toSettings(
  raw: RawSettings,
  path: ConfigPath,
  issues: ConfigIssues,
): ServiceSettings {
  const { podMonitor, scaleToZero, ...rest } = raw;
  const settings: ServiceSettings = { ...rest };
  if (podMonitor !== undefined) {
    settings.podMonitor =
      typeof podMonitor === 'boolean'
        ? { enabled: podMonitor, labels: {} }
        : { enabled: true, labels: podMonitor.labels ?? {} };
  }
  if (scaleToZero && 'httpAddOn' in scaleToZero) {
    settings.wakeTrigger = {
      type: 'http-add-on',
      scaledownPeriodSeconds:
        scaleToZero.httpAddOn.scaledownPeriodSeconds ??
        DEFAULT_SCALEDOWN_PERIOD_SECONDS,
      ...(scaleToZero.httpAddOn.interceptorUrl && {
        interceptorUrl: scaleToZero.httpAddOn.interceptorUrl,
      }),
    };
  } else if (scaleToZero) {
    if (!scaleToZero.wakeQuery.includes(WAKE_QUERY_PLACEHOLDERS.service)) {
      issues.add(
        [...path, 'scaleToZero', 'wakeQuery'],
        `must select the service with ${WAKE_QUERY_PLACEHOLDERS.service} (and may use ${WAKE_QUERY_PLACEHOLDERS.namespace}), e.g. sum(gateway_pending_requests{namespace="${WAKE_QUERY_PLACEHOLDERS.namespace}",service="${WAKE_QUERY_PLACEHOLDERS.service}"})`,
      );
    }
    settings.wakeTrigger = { type: 'prometheus', query: scaleToZero.wakeQuery };
  }
  if (
    settings.modelCache?.existingClaim &&
    settings.modelCache.storageClassName
  ) {
    issues.add(
      [...path, 'modelCache'],
      'give either storageClassName (for the claim rendered per service) or existingClaim (a shared ReadWriteMany claim mounted instead), not both',
    );
  }
  return settings;
}

function overrides(
  raw: Record<string, RawSettings> | undefined,
  key: 'byPool' | 'byEnvironment',
  known: string[],
  issues: ConfigIssues,
): Record<string, ServiceSettings> {
  const result: Record<string, ServiceSettings> = {};
  for (const [name, settings] of Object.entries(raw ?? {})) {
    const path = ['gpu', 'serviceDefaults', key, name];
    if (!known.includes(name)) {
      issues.add(
        path,
        `no ${
          key === 'byPool' ? 'pool' : 'environment'
        } is named "${name}"; allowed: ${listAllowed(known)}`,
      );
    }
    result[name] = toSettings(settings, path, issues);
  }
  return result;
}

/**
 * Validates `gpu.serviceDefaults` (a plain object; `undefined` means "not configured") against the platform's pools
 * and environments.
 *
 * @throws GpuDomainError with code `INVALID_CONFIG` naming every bad key by its path (e.g.
 *   `gpu.serviceDefaults.byPool.l4.images.vllm`) and what is allowed.
 * @public
 */
export function parseServiceDefaults(
  raw: unknown,
  platform: Pick<Platform, 'pools' | 'environments'>,
): ServiceDefaults {
  const issues = new ConfigIssues();
  const parsed = serviceDefaultsSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      issues.add(['gpu', 'serviceDefaults', ...issue.path], issue.message);
    }
    issues.throwIfAny();
  }
  const { byPool, byEnvironment, ...base } = parsed.data!;
  const result: ServiceDefaults = {
    defaults: toSettings(base, ['gpu', 'serviceDefaults'], issues),
    byPool: overrides(
      byPool,
      'byPool',
      platform.pools.map(p => p.name),
      issues,
    ),
    byEnvironment: overrides(
      byEnvironment,
      'byEnvironment',
      platform.environments.map(e => e.name),
      issues,
    ),
  };
  issues.throwIfAny();
  return result;
}
