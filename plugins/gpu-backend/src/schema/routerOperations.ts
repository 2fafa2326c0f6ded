import type { Router } from 'express';

/** One route an express router answers: an HTTP method and an OpenAPI path template such as `/services/{id}`. */
export interface RouterOperation {
  method: string;
  path: string;
}

interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle: { stack?: Layer[] };
  regexp: RegExp & { fast_slash?: boolean };
  keys: { name: string }[];
}

/**
 * Every method and path an express 4 router registers, sub-routers mounted with `router.use` included, as OpenAPI
 * operations: `:id` becomes `{id}`, and a parameter restricted to alternatives (`:decision(approve|reject)`) becomes
 * one path per alternative. Sorted by path, then method.
 */
export function routerOperations(router: Router): RouterOperation[] {
  const operations = collect(
    (router as unknown as { stack: Layer[] }).stack,
    '',
  );
  return operations.sort(
    (a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method),
  );
}

function collect(stack: Layer[], prefix: string): RouterOperation[] {
  return stack.flatMap(layer => {
    if (layer.route) {
      const paths = Array.isArray(layer.route.path)
        ? layer.route.path
        : [layer.route.path];
      return paths.flatMap(path =>
        expandPath(`${prefix}${path}`, `${prefix}${path}`).flatMap(
          openApiPath =>
            Object.keys(layer.route!.methods)
              .filter(
                method => layer.route!.methods[method] && method !== '_all',
              )
              .map(method => ({ method, path: openApiPath })),
        ),
      );
    }
    if (Array.isArray(layer.handle.stack)) {
      return collect(layer.handle.stack, `${prefix}${mountPath(layer)}`);
    }
    return [];
  });
}

/** The path a sub-router is mounted at, recovered from the layer's regular expression (express 4 keeps no string). */
function mountPath(layer: Layer): string {
  if (layer.regexp.fast_slash) {
    return '';
  }
  let keyIndex = 0;
  const path = layer.regexp.source
    .replace(/^\^/, '')
    .replace(/\\\/\?\(\?=\\\/\|\$\)$/, '')
    .replace(
      /\(\?:\\\/\(\[\^\/\]\+\?\)\)/g,
      () => `/:${layer.keys[keyIndex++].name}`,
    )
    .replace(/\\\//g, '/');
  if (/[\\()[\]?*+^$|]/.test(path)) {
    throw new Error(
      `Cannot read the mount path of a sub-router from ${layer.regexp}`,
    );
  }
  return path;
}

/** `/approvals/:id/:decision(approve|reject)` to `/approvals/{id}/approve` and `/approvals/{id}/reject`. */
function expandPath(path: string, route: string): string[] {
  return path.split('/').reduce<string[]>(
    (prefixes, segment, index) => {
      const alternatives = segmentAlternatives(segment, route);
      return prefixes.flatMap(p =>
        alternatives.map(a => (index === 0 ? a : `${p}/${a}`)),
      );
    },
    [''],
  );
}

function segmentAlternatives(segment: string, route: string): string[] {
  const restricted = /^:(\w+)\(([\w|-]+)\)$/.exec(segment);
  if (restricted) {
    return restricted[2].split('|');
  }
  const param = /^:(\w+)$/.exec(segment);
  if (param) {
    return [`{${param[1]}}`];
  }
  if (/[:()*?+]/.test(segment)) {
    throw new Error(
      `Cannot describe the segment '${segment}' of ${route} in OpenAPI`,
    );
  }
  return [segment];
}
