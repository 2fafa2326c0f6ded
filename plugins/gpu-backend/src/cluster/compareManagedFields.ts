import { FieldDrift } from './types';

/** Top-level fields the cluster owns; never compared. */
const IGNORED_ROOT_KEYS = new Set(['status']);

const QUANTITY =
  /^([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?$/;

const QUANTITY_FACTORS: Record<string, number> = {
  '': 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/**
 * The fields of `desired` (what we render and apply, so exactly the fields our field
 * manager owns) whose live value differs. Fields only the cluster sets are ignored;
 * lists of named items (containers, env, ports, volumes) are matched by name, other
 * lists must match element by element; quantities compare by value (`1024Mi` equals
 * `1Gi`, `1` equals `"1"`).
 */
export function compareManagedFields(
  desired: object,
  live: object,
): FieldDrift[] {
  const drift: FieldDrift[] = [];
  for (const [key, value] of Object.entries(desired)) {
    if (!IGNORED_ROOT_KEYS.has(key)) {
      walk(value, (live as Record<string, unknown>)[key], key, drift);
    }
  }
  return drift;
}

function walk(
  expected: unknown,
  actual: unknown,
  path: string,
  drift: FieldDrift[],
): void {
  if (expected === undefined || expected === null) {
    return;
  }
  if (Array.isArray(expected)) {
    walkArray(expected, actual, path, drift);
    return;
  }
  if (typeof expected === 'object') {
    if (!isObject(actual)) {
      drift.push({ path, expected, actual });
      return;
    }
    for (const [key, value] of Object.entries(expected)) {
      walk(value, actual[key], joinKey(path, key), drift);
    }
    return;
  }
  if (!sameScalar(expected, actual)) {
    drift.push({ path, expected, actual });
  }
}

function walkArray(
  expected: unknown[],
  actual: unknown,
  path: string,
  drift: FieldDrift[],
): void {
  if (!Array.isArray(actual)) {
    drift.push({ path, expected, actual });
    return;
  }
  if (expected.every(item => isObject(item) && typeof item.name === 'string')) {
    for (const item of expected as Array<{ name: string }>) {
      const match = actual.find(
        candidate => isObject(candidate) && candidate.name === item.name,
      );
      walk(item, match, `${path}[name=${item.name}]`, drift);
    }
    return;
  }
  if (expected.length !== actual.length) {
    drift.push({ path, expected, actual });
    return;
  }
  expected.forEach((item, index) =>
    walk(item, actual[index], `${path}[${index}]`, drift),
  );
}

function sameScalar(expected: unknown, actual: unknown): boolean {
  if (expected === actual) {
    return true;
  }
  if (actual === undefined || actual === null) {
    return false;
  }
  if (String(expected) === String(actual)) {
    return true;
  }
  const a = quantity(expected);
  const b = quantity(actual);
  return (
    a !== undefined &&
    b !== undefined &&
    Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b))
  );
}

function quantity(value: unknown): number | undefined {
  if (typeof value === 'number') {
    return value;
  }
  if (typeof value !== 'string') {
    return undefined;
  }
  const match = QUANTITY.exec(value);
  return match
    ? Number(match[1]) * QUANTITY_FACTORS[match[2] ?? '']
    : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function joinKey(path: string, key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key)
    ? `${path}.${key}`
    : `${path}[${JSON.stringify(key)}]`;
}
