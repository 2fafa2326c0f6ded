import { DcgmLabelNames } from './PrometheusConfig';

/** A PromQL double-quoted string literal. */
export function promString(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** Escapes RE2 metacharacters so a name matches literally. */
export function escapeRegex(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A fully anchored RE2 alternative of literal values, e.g. `(?:a|b)`. */
export function anyOf(values: Iterable<string>): string {
  const unique = [...new Set(values)].sort();
  return unique.length === 0
    ? '(?!)'
    : `(?:${unique.map(escapeRegex).join('|')})`;
}

/** Regex of the pods of Deployments: `<deployment>-<replicaset hash>-<pod hash>`. */
export function podsOfDeployments(deployments: Iterable<string>): string {
  return `${anyOf(deployments)}-[a-z0-9]+-[a-z0-9]+`;
}

/** Which pods a query covers: regexes on pod, namespace and host (absent: any). */
export interface PodMatch {
  pod?: string;
  namespace?: string;
  hostname?: string;
  /** Further matchers, as written in a selector (e.g. `resource=~"nvidia_com_gpu.*"`). */
  extra?: string;
}

/** The label names DCGM series end up with after normalisation (`pod`/`namespace` by default). */
export function dcgmOutputLabels(labels: DcgmLabelNames) {
  return {
    pod: labels.pod ?? 'pod',
    namespace: labels.namespace ?? 'namespace',
    hostname: labels.hostname,
    gpu: labels.gpu,
    migInstance: labels.migInstance,
    migProfile: labels.migProfile,
  };
}

function matchers(
  entries: Array<[string, string | undefined, string]>,
): string {
  return entries
    .map(([label, regex, whenAny]) =>
      regex === undefined
        ? `${label}${whenAny}`
        : `${label}=~${promString(regex)}`,
    )
    .join(',');
}

/**
 * A DCGM metric of the matched pods, with `wrap` applied to each selector (e.g. `avg_over_time(<sel>[1h])`). With the
 * default label names it accepts both `pod`/`namespace` and the `exported_pod`/`exported_namespace` a scrape without
 * honorLabels produces, and renames the latter to `pod`/`namespace`.
 */
export function dcgmSeries(
  metric: string,
  match: PodMatch,
  labels: DcgmLabelNames,
  wrap: (selector: string) => string,
): string {
  const host: Array<[string, string | undefined, string]> =
    match.hostname === undefined ? [] : [[labels.hostname, match.hostname, '']];
  const extra = match.extra ? `,${match.extra}` : '';
  if (labels.pod !== undefined || labels.namespace !== undefined) {
    const out = dcgmOutputLabels(labels);
    return wrap(
      `${metric}{${matchers([
        [out.pod, match.pod, '!=""'],
        [out.namespace, match.namespace, '!=""'],
        ...host,
      ])}${extra}}`,
    );
  }
  const exported = wrap(
    `${metric}{${matchers([
      ['exported_pod', match.pod, '!=""'],
      ['exported_namespace', match.namespace, '!=""'],
      ...host,
    ])}${extra}}`,
  );
  const direct = wrap(
    `${metric}{${matchers([
      ['pod', match.pod, '!=""'],
      ['namespace', match.namespace, '!=""'],
      ...host,
    ])},exported_pod=""${extra}}`,
  );
  return `(label_replace(label_replace(${exported},"pod","$1","exported_pod","(.+)"),"namespace","$1","exported_namespace","(.+)") or ${direct})`;
}

/** `by (...)` clause over a device series' identity: pod, namespace, host, GPU and MIG instance. */
export function dcgmBy(labels: DcgmLabelNames): string {
  const out = dcgmOutputLabels(labels);
  return `by (${[
    out.pod,
    out.namespace,
    out.hostname,
    out.gpu,
    out.migInstance,
    out.migProfile,
  ].join(',')})`;
}

/** A Prometheus duration in whole seconds, e.g. `86400s`. */
export function seconds(value: number): string {
  return `${Math.max(1, Math.round(value))}s`;
}

/**
 * The range selector of a window of `value` seconds ending at the evaluation time, meaning the samples in
 * `(t - value, t]` on every Prometheus: 3.x range selectors (and subqueries) are left-open, 2.x ones also take the
 * sample at `t - value`, which belongs to the previous window (a day of 5-minute samples is 288 samples, and the
 * sample at midnight would count in two daily snapshots). One millisecond less gives 2.x the same samples, e.g.
 * `86399999ms` for a day.
 */
export function windowRange(value: number): string {
  return `${Math.max(1, Math.round(value)) * 1000 - 1}ms`;
}

/**
 * The increase of the counter `selector` over a window of `value` seconds (`windowRange`), extrapolated to the whole
 * window: `increase()` over the range one millisecond short would extrapolate to that range, so the per-second
 * `rate()` times the window, the same on 2.x and 3.x.
 */
export function windowIncrease(selector: string, value: number): string {
  return `(rate(${selector}[${windowRange(value)}]) * ${Math.max(
    1,
    Math.round(value),
  )})`;
}

/**
 * The increase of the counter `selector` in the step before each evaluation time, for range queries at that step:
 * `rate()` (so a counter reset, e.g. a restarted vLLM, is handled as `increase()` handles it) over the step, times the
 * step; where the step holds a single sample (samples as far apart as the step), over the two steps before t.
 */
export function stepIncrease(selector: string, step: number): string {
  return `((rate(${selector}[${windowRange(
    step,
  )}]) or rate(${selector}[${windowRange(2 * step)}])) * ${Math.max(
    1,
    Math.round(step),
  )})`;
}
