/**
 * Bad inputs for the fuzz suite (`fuzz.test.ts`), generated from src/schema/openapi.yaml: for every operation a
 * plausible request built from its schemas, then that request with one part broken at a time (NUL characters, huge
 * and negative numbers, wrong types, oversized strings, bad cursors), bounded per operation.
 */

type Schema = Record<string, any>;

/** One request of the fuzz run. */
export interface FuzzCase {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** The spec's path, e.g. `/services/{id}`. */
  route: string;
  /** What is broken, for the failure message. */
  what: string;
  path: string;
  query: Record<string, string | string[]>;
  /** A JSON value, or raw text sent as application/json. */
  body?: unknown;
  rawBody?: string;
}

const NUL = 'a\u0000b';
const HUGE_DIGITS = '12345678901234567890123';

/** Values of any type that no field of the API takes as they are. */
const BAD_VALUES: Array<[string, unknown]> = [
  ['a NUL character', NUL],
  ['a huge number', 1e308],
  ['a huge negative number', -1e308],
  ['a tiny number', 1e-300],
  ['a fraction', 1.5],
  ['23 digits', HUGE_DIGITS],
  ['a 23-digit number', 12345678901234567890123],
  ['a long string', 'x'.repeat(20_000)],
  ['null', null],
  ['an object', { a: NUL }],
  ['an array', [NUL, 1e308]],
  ['a boolean', true],
  ['an empty string', ''],
  ['a negative number', -1],
];

/** Query and path values that no parameter of the API takes as they are. */
const BAD_STRINGS: Array<[string, string]> = [
  ['a NUL character', NUL],
  ['23 digits', HUGE_DIGITS],
  ['a negative number', '-1'],
  ['a huge number', '1e308'],
  ['a long string', 'x'.repeat(5_000)],
  ['an empty string', ''],
  ['unicode', '\u202e\ud83d\ude00'],
  [
    'a base64 cursor of the wrong shape',
    Buffer.from('[1,2,3]').toString('base64url'),
  ],
  [
    'a base64 cursor of a huge time',
    Buffer.from(JSON.stringify(['+275760-09-13T00:00:00.001Z', 'x'])).toString(
      'base64url',
    ),
  ],
  [
    'a base64 cursor of a time past what PostgreSQL stores',
    Buffer.from(JSON.stringify(['+200000-01-01T00:00:00.000Z', 'x'])).toString(
      'base64url',
    ),
  ],
  [
    'a base64 cursor with a NUL character',
    Buffer.from(
      JSON.stringify(['2026-01-01T00:00:00.000Z', 'a\u0000']),
    ).toString('base64url'),
  ],
  ['an ascending cursor of 20 digits', 'asc.99999999999999999999'],
  ['SQL', "' OR 1=1 --"],
  ['a LIKE wildcard', '%_\\'],
];

function resolve(spec: Schema, schema: Schema | undefined): Schema {
  let current = schema ?? {};
  for (let i = 0; current.$ref && i < 20; i++) {
    const path = (current.$ref as string).replace(/^#\//, '').split('/');
    current = path.reduce((node: Schema, key) => node[key], spec);
  }
  if (current.allOf) {
    return current.allOf
      .map((part: Schema) => resolve(spec, part))
      .reduce((a: Schema, b: Schema) => ({
        ...a,
        ...b,
        properties: { ...a.properties, ...b.properties },
        required: [...(a.required ?? []), ...(b.required ?? [])],
      }));
  }
  return current;
}

/** A plausible value of a schema: required properties, the first enum value, the minimum. */
function sample(spec: Schema, raw: Schema, depth = 0): unknown {
  const schema = resolve(spec, raw);
  if (schema.enum) return schema.enum[0];
  if (schema.oneOf || schema.anyOf) {
    return sample(spec, (schema.oneOf ?? schema.anyOf)[0], depth + 1);
  }
  switch (schema.type) {
    case 'object': {
      if (depth > 4) return {};
      const out: Record<string, unknown> = {};
      for (const key of schema.required ?? []) {
        out[key] = sample(spec, schema.properties?.[key] ?? {}, depth + 1);
      }
      return out;
    }
    case 'array':
      return [];
    case 'integer':
    case 'number':
      return Math.max(schema.minimum ?? 1, 1);
    case 'boolean':
      return false;
    default:
      return schema.minLength && schema.minLength > 1
        ? 'x'.repeat(schema.minLength)
        : 'x';
  }
}

/** Every property path of an object schema, one level down into objects (`request.replicas`). */
function propertyPaths(
  spec: Schema,
  raw: Schema,
  prefix: string[] = [],
): string[][] {
  const schema = resolve(spec, raw);
  if (schema.type !== 'object' || !schema.properties) return [];
  return Object.entries(schema.properties).flatMap(([key, child]) => {
    const path = [...prefix, key];
    const nested =
      prefix.length === 0 ? propertyPaths(spec, child as Schema, path) : [];
    return [path, ...nested];
  });
}

function withValue(body: unknown, path: string[], value: unknown): unknown {
  const copy = structuredClone(body ?? {}) as Record<string, any>;
  let node = copy;
  for (const key of path.slice(0, -1)) {
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = {};
    node = node[key];
  }
  node[path[path.length - 1]] = value;
  return copy;
}

/** Takes every `step`th item so that at most `max` remain, keeping the first. */
function bounded<T>(items: T[], max: number): T[] {
  if (items.length <= max) return items;
  const step = items.length / max;
  return Array.from({ length: max }, (_, i) => items[Math.floor(i * step)]);
}

/**
 * The bad requests of every operation of `spec`, at most `maxPerOperation` each. `pathValues` gives a real value of
 * each path parameter (a service id, a team), so that broken query and body values reach the handlers.
 */
export function badInputs(
  spec: Schema,
  pathValues: Record<string, string>,
  maxPerOperation: number,
): FuzzCase[] {
  const cases: FuzzCase[] = [];
  for (const [route, item] of Object.entries(spec.paths as Schema)) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
      const operation = item[method] as Schema | undefined;
      if (!operation) continue;
      const parameters = [
        ...(item.parameters ?? []),
        ...(operation.parameters ?? []),
      ].map((p: Schema) => resolve(spec, p));
      const pathParams = parameters.filter(p => p.in === 'path');
      const queryParams = parameters.filter(p => p.in === 'query');
      const fill = (values: Record<string, string>) =>
        route.replace(/\{(\w+)\}/g, (_, name) =>
          encodeURIComponent(values[name] ?? pathValues[name] ?? 'x'),
        );
      const baseQuery: Record<string, string> = {};
      for (const p of queryParams.filter(q => q.required)) {
        baseQuery[p.name] = String(sample(spec, p.schema));
      }
      const bodySchema =
        operation.requestBody?.content?.['application/json']?.schema;
      const baseBody = bodySchema ? sample(spec, bodySchema) : undefined;
      const base = { method, route, query: baseQuery, body: baseBody };
      const operationCases: FuzzCase[] = [
        { ...base, what: 'the plausible request', path: fill({}) },
      ];
      for (const p of pathParams) {
        for (const [what, value] of BAD_STRINGS) {
          operationCases.push({
            ...base,
            what: `path ${p.name}: ${what}`,
            path: fill({ [p.name]: value }),
          });
        }
      }
      for (const p of queryParams) {
        for (const [what, value] of BAD_STRINGS) {
          operationCases.push({
            ...base,
            what: `query ${p.name}: ${what}`,
            path: fill({}),
            query: { ...baseQuery, [p.name]: value },
          });
        }
        operationCases.push({
          ...base,
          what: `query ${p.name} twice`,
          path: fill({}),
          query: { ...baseQuery, [p.name]: ['1', NUL] },
        });
      }
      if (bodySchema) {
        for (const path of propertyPaths(spec, bodySchema)) {
          for (const [what, value] of BAD_VALUES) {
            operationCases.push({
              ...base,
              what: `body ${path.join('.')}: ${what}`,
              path: fill({}),
              body: withValue(baseBody, path, value),
            });
          }
        }
        const wholeBodies: Array<[string, Partial<FuzzCase>]> = [
          ['a body that is an array', { body: [NUL] }],
          ['a body that is a string', { rawBody: JSON.stringify(NUL) }],
          ['a body that is null', { rawBody: 'null' }],
          ['malformed JSON', { rawBody: '{"name": ' }],
          [
            'a body nested 5,000 deep',
            { rawBody: `${'['.repeat(5000)}${']'.repeat(5000)}` },
          ],
          [
            'a body of 1 MB',
            { body: { ...(baseBody as object), pad: 'x'.repeat(1024 * 1024) } },
          ],
          ['a NUL in a key', { body: { ...(baseBody as object), [NUL]: 1 } }],
        ];
        for (const [what, change] of wholeBodies) {
          operationCases.push({
            ...base,
            what,
            path: fill({}),
            body: undefined,
            ...change,
          });
        }
      }
      cases.push(...bounded(operationCases, maxPerOperation));
    }
  }
  return cases;
}

/** One call of an action in the fuzz run. */
export interface ActionFuzzCase {
  action: string;
  what: string;
  input: Record<string, unknown>;
}

/**
 * The bad inputs of an action, from its input's JSON Schema (as the Actions Registry lists it), at most `max`: a
 * plausible input, then each property (one level down into objects) set to each of the bad values.
 */
export function badActionInputs(
  action: string,
  inputSchema: Schema,
  max: number,
): ActionFuzzCase[] {
  const spec = {};
  const base = (sample(spec, inputSchema) ?? {}) as Record<string, unknown>;
  const cases: ActionFuzzCase[] = [
    { action, what: 'a plausible input', input: base },
    { action, what: 'an empty input', input: {} },
  ];
  for (const path of propertyPaths(spec, inputSchema)) {
    for (const [what, value] of BAD_VALUES) {
      cases.push({
        action,
        what: `${path.join('.')}: ${what}`,
        input: withValue(base, path, value) as Record<string, unknown>,
      });
    }
  }
  return bounded(cases, max);
}
