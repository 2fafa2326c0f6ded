const TOP_LEVEL_ORDER = ['apiVersion', 'kind', 'metadata'];

function rank(key: string, topLevel: boolean): number {
  const index = topLevel ? TOP_LEVEL_ORDER.indexOf(key) : -1;
  return index >= 0 ? index : TOP_LEVEL_ORDER.length;
}

function canonical(value: unknown, topLevel: boolean): unknown {
  if (Array.isArray(value)) {
    return value
      .filter(item => item !== undefined)
      .map(item => canonical(item, false));
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => {
        const byRank = rank(a, topLevel) - rank(b, topLevel);
        if (byRank !== 0) return byRank;
        if (a < b) return -1;
        return a > b ? 1 : 0;
      });
    return Object.fromEntries(
      entries.map(([k, v]) => [k, canonical(v, false)]),
    );
  }
  return value;
}

/**
 * A copy of a Kubernetes object in canonical form: `apiVersion`, `kind`, `metadata` first, every other key in code
 * point order at every depth (as `kubectl get -o yaml` prints), `undefined` fields dropped. Array order is kept.
 * Rendering the same input therefore always gives byte-identical JSON and YAML.
 */
export function stableObject<T extends object>(object: T): T {
  return canonical(object, true) as T;
}
