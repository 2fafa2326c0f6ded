import { createBackendModule } from '@backstage/backend-plugin-api';
import { isChildPath, targetPaths } from '@backstage/cli-common';
import {
  catalogProcessingExtensionPoint,
  PlaceholderResolverParams,
  processingResult,
} from '@backstage/plugin-catalog-node';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

function isUrl(value: string): boolean {
  try {
    // eslint-disable-next-line no-new
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * The catalog's `$text` placeholder, which also reads files next to an entity of a `file` location: Backstage's
 * own resolves URLs only (a relative path from a local catalog file fails: backstage/backstage#14372), so the
 * demo catalog's API entity could not take its definition from the spec file. A local file must stay inside the
 * repository root (the monorepo root of the backend), whatever the path says; URLs are read as before.
 */
export async function textPlaceholderResolver(
  params: PlaceholderResolverParams,
  rootDir: string = targetPaths.rootDir,
): Promise<string> {
  const { key, value, baseUrl } = params;
  if (typeof value !== 'string') {
    throw new Error(
      `Placeholder $${key} expected a string value parameter, in the form of an absolute URL or a relative path`,
    );
  }
  // A `file` location's target is an absolute path.
  if (!isUrl(baseUrl) && path.isAbsolute(baseUrl) && !isUrl(value)) {
    const file = path.resolve(path.dirname(baseUrl), value);
    if (!isChildPath(rootDir, file)) {
      throw new Error(
        `Placeholder $${key} may only read files inside ${rootDir}; got ${value}`,
      );
    }
    try {
      return await readFile(file, 'utf8');
    } catch (error) {
      throw new Error(
        `Placeholder $${key} could not read ${value}, ${
          (error as Error).message
        }`,
      );
    }
  }
  // Like the catalog's own: resolve against the location's URL and read through the UrlReader.
  const url = params.resolveUrl(value, baseUrl);
  const content = (await params.read(url)).toString('utf-8');
  params.emit(processingResult.refresh(`url:${url}`));
  return content;
}

/**
 * Replaces the catalog's `$text` placeholder with {@link textPlaceholderResolver} (resolvers of modules are applied
 * over the built-in ones).
 */
export const localTextPlaceholderModule = createBackendModule({
  pluginId: 'catalog',
  moduleId: 'local-text-placeholder',
  register(env) {
    env.registerInit({
      deps: { catalog: catalogProcessingExtensionPoint },
      async init({ catalog }) {
        catalog.addPlaceholderResolver('text', params =>
          textPlaceholderResolver(params),
        );
      },
    });
  },
});
