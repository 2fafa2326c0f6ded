/**
 * One sample of a metric in the Prometheus text exposition format (e.g. an API server's `/metrics`).
 *
 * @public
 */
export interface MetricSample {
  /** Its labels, values as written (escaped quotes kept). */
  labels: Record<string, string>;
  value: number;
}

/**
 * The samples of metric `name` in a `/metrics` answer, with their labels.
 *
 * @public
 */
export function metricSamples(text: string, name: string): MetricSample[] {
  const samples: MetricSample[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const close = line.lastIndexOf('}');
    const labels: Record<string, string> = {};
    for (const [, label, value] of line
      .slice(name.length + 1, close)
      .matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      labels[label] = value;
    }
    samples.push({ labels, value: Number(line.slice(close + 1).trim()) });
  }
  return samples;
}
