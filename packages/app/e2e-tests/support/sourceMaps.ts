import { APIRequestContext } from '@playwright/test';

/** What of a source map (version 3) says which original file a generated position came from. */
export interface SourceMap {
  sources: string[];
  mappings: string;
}

const BASE64 =
  'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** The numbers of one segment of `mappings` (Base64 VLQ, sign in the lowest bit). */
function decodeSegment(segment: string): number[] {
  const values: number[] = [];
  let value = 0;
  let shift = 0;
  for (const char of segment) {
    const digit = BASE64.indexOf(char);
    value += (digit & 31) * 2 ** shift;
    if (digit & 32) {
      shift += 5;
    } else {
      values.push(value % 2 ? -Math.floor(value / 2) : value / 2);
      value = 0;
      shift = 0;
    }
  }
  return values;
}

/**
 * The original source file of a generated position (0-based line and column), or undefined where the map says the
 * code came from nowhere. Segments are relative to the previous one: the column within its line, the source index
 * across the whole map.
 */
export function sourceAt(
  map: SourceMap,
  line: number,
  column: number,
): string | undefined {
  const lines = map.mappings.split(';');
  let source = 0;
  for (let l = 0; l < lines.length && l <= line; l++) {
    let generatedColumn = 0;
    let found: number | undefined;
    for (const segment of lines[l].split(',')) {
      if (!segment) continue;
      const [columnDelta, sourceDelta] = decodeSegment(segment);
      generatedColumn += columnDelta;
      if (sourceDelta !== undefined) source += sourceDelta;
      if (l === line && generatedColumn <= column) {
        found = sourceDelta === undefined ? undefined : source;
      }
    }
    if (l === line) return found === undefined ? undefined : map.sources[found];
  }
  return undefined;
}

/** Source maps of the app's scripts, by script URL, fetched once each (the build writes `<script>.map`). */
export function sourceMapsOf(request: APIRequestContext) {
  const maps = new Map<string, Promise<SourceMap | undefined>>();
  const mapOf = (scriptUrl: string) => {
    if (!maps.has(scriptUrl)) {
      maps.set(
        scriptUrl,
        request
          .get(`${scriptUrl}.map`)
          .then(async res =>
            res.ok() ? ((await res.json()) as SourceMap) : undefined,
          ),
      );
    }
    return maps.get(scriptUrl)!;
  };
  /** The original source of a position in one of the app's scripts, e.g. `webpack://app/../../node_modules/...`. */
  return async (scriptUrl: string, line: number, column: number) => {
    if (!/\.js$/.test(new URL(scriptUrl).pathname)) return undefined;
    const map = await mapOf(scriptUrl);
    return map ? sourceAt(map, line, column) : undefined;
  };
}
