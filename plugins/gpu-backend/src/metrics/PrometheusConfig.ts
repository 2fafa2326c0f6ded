import { Config } from '@backstage/config';
import { InputError } from '@backstage/errors';
import {
  CircuitBreakerSettings,
  DEFAULT_CIRCUIT_BREAKER,
} from './CircuitBreaker';

/** Label names of the DCGM exporter series, after the scrape. */
export interface DcgmLabelNames {
  /** Pod label; `undefined` means `pod`, falling back to `exported_pod` (dcgm-exporter issue #340). */
  pod?: string;
  /** Namespace label; `undefined` means `namespace`, falling back to `exported_namespace`. */
  namespace?: string;
  hostname: string;
  gpu: string;
  migInstance: string;
  migProfile: string;
}

/** How to reach Prometheus, read from `gpu.prometheus`. */
export interface PrometheusSettings {
  baseUrl: string;
  /** Value of the `Authorization` header, if any. */
  authorization?: string;
  timeoutMs: number;
  /** What one API request gives Prometheus for all its queries. */
  requestDeadlineMs: number;
  circuitBreaker: CircuitBreakerSettings;
  labels: DcgmLabelNames;
  /** Most PromQL HTTP requests in flight at once: per API request, and over the whole process. */
  concurrency: { perRequest: number; overall: number };
  /** `gpu.prometheus.simulated`: the series are the demo's simulated ones, not measured. */
  simulated: boolean;
}

export const DEFAULT_PROMETHEUS_TIMEOUT_MS = 5000;
export const DEFAULT_PROMETHEUS_REQUEST_DEADLINE_MS = 8000;
export const DEFAULT_PROMETHEUS_CONCURRENCY = { perRequest: 4, overall: 16 };

function concurrencyLimit(
  config: Config | undefined,
  key: 'perRequest' | 'overall',
): number {
  const value =
    config?.getOptionalNumber(key) ?? DEFAULT_PROMETHEUS_CONCURRENCY[key];
  if (!(Number.isInteger(value) && value >= 1 && value <= 256)) {
    throw new InputError(
      `Invalid gpu.prometheus.concurrency.${key} ${value}: expected an integer from 1 to 256`,
    );
  }
  return value;
}

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

function labelName(
  config: Config | undefined,
  key: string,
): string | undefined {
  const value = config?.getOptionalString(key);
  if (value !== undefined && !LABEL_NAME.test(value)) {
    throw new InputError(
      `Invalid gpu.prometheus.labels.${key} '${value}': expected a Prometheus label name`,
    );
  }
  return value;
}

/** Reads `gpu.prometheus`; undefined when no Prometheus is configured. */
export function readPrometheusConfig(
  config: Config,
): PrometheusSettings | undefined {
  const section = config.getOptionalConfig('gpu.prometheus');
  if (!section) {
    return undefined;
  }
  const baseUrl = section.getString('baseUrl');
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new InputError(
      `Invalid gpu.prometheus.baseUrl '${baseUrl}': expected an http(s) URL`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InputError(
      `Invalid gpu.prometheus.baseUrl '${baseUrl}': expected an http(s) URL`,
    );
  }
  const timeoutMs =
    section.getOptionalNumber('timeout') ?? DEFAULT_PROMETHEUS_TIMEOUT_MS;
  if (!(timeoutMs > 0 && timeoutMs <= 120_000)) {
    throw new InputError(
      `Invalid gpu.prometheus.timeout ${timeoutMs}: expected 1 to 120000 milliseconds`,
    );
  }
  const requestDeadlineMs =
    section.getOptionalNumber('requestDeadline') ??
    Math.max(DEFAULT_PROMETHEUS_REQUEST_DEADLINE_MS, timeoutMs);
  if (!(requestDeadlineMs >= timeoutMs && requestDeadlineMs <= 300_000)) {
    throw new InputError(
      `Invalid gpu.prometheus.requestDeadline ${requestDeadlineMs}: expected from gpu.prometheus.timeout (${timeoutMs}) to 300000 milliseconds`,
    );
  }
  const breaker = section.getOptionalConfig('circuitBreaker');
  const failures =
    breaker?.getOptionalNumber('failures') ?? DEFAULT_CIRCUIT_BREAKER.failures;
  if (!(Number.isInteger(failures) && failures >= 1 && failures <= 1000)) {
    throw new InputError(
      `Invalid gpu.prometheus.circuitBreaker.failures ${failures}: expected an integer from 1 to 1000`,
    );
  }
  const openMs =
    breaker?.getOptionalNumber('openFor') ?? DEFAULT_CIRCUIT_BREAKER.openMs;
  if (!(openMs >= 100 && openMs <= 3_600_000)) {
    throw new InputError(
      `Invalid gpu.prometheus.circuitBreaker.openFor ${openMs}: expected 100 to 3600000 milliseconds`,
    );
  }
  const auth = section.getOptionalConfig('auth');
  let authorization: string | undefined;
  if (auth?.has('token')) {
    authorization = `Bearer ${auth.getString('token')}`;
  } else if (auth) {
    const user = auth.getString('username');
    const password = auth.getString('password');
    authorization = `Basic ${Buffer.from(`${user}:${password}`).toString(
      'base64',
    )}`;
  }
  const labels = section.getOptionalConfig('labels');
  const concurrency = section.getOptionalConfig('concurrency');
  return {
    concurrency: {
      perRequest: concurrencyLimit(concurrency, 'perRequest'),
      overall: concurrencyLimit(concurrency, 'overall'),
    },
    baseUrl: baseUrl.replace(/\/+$/, ''),
    simulated: section.getOptionalBoolean('simulated') ?? false,
    authorization,
    timeoutMs,
    requestDeadlineMs,
    circuitBreaker: { failures, openMs },
    labels: {
      pod: labelName(labels, 'pod'),
      namespace: labelName(labels, 'namespace'),
      hostname: labelName(labels, 'hostname') ?? 'Hostname',
      gpu: labelName(labels, 'gpu') ?? 'gpu',
      migInstance: labelName(labels, 'migInstance') ?? 'GPU_I_ID',
      migProfile: labelName(labels, 'migProfile') ?? 'GPU_I_PROFILE',
    },
  };
}
