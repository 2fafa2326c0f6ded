/**
 * Compares a results file with the committed one of the same benchmark: every field the committed results have
 * (objects key by key, arrays by their first element) must be there, with a value of the same type. A benchmark
 * that drops, renames or stops filling a field (a NaN is written as null) fails the smoke run, so the README tables
 * built from the committed results can always be rebuilt.
 */
export function shapeProblems(
  expected: unknown,
  actual: unknown,
  path = '$',
): string[] {
  if (expected === null || expected === undefined) return [];
  if (actual === null || actual === undefined) {
    return [`${path} is ${actual === null ? 'null' : 'missing'}`];
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${path} is not an array`];
    if (expected.length === 0 || actual.length === 0) return [];
    return actual.flatMap((element, i) =>
      shapeProblems(expected[0], element, `${path}[${i}]`),
    );
  }
  if (typeof expected === 'object') {
    if (typeof actual !== 'object' || Array.isArray(actual)) {
      return [`${path} is not an object`];
    }
    const record = actual as Record<string, unknown>;
    return Object.entries(expected as Record<string, unknown>).flatMap(
      ([key, value]) =>
        key in record
          ? shapeProblems(value, record[key], `${path}.${key}`)
          : [`${path}.${key} is missing`],
    );
  }
  return typeof expected === typeof actual
    ? []
    : [`${path} is a ${typeof actual}, not a ${typeof expected}`];
}
