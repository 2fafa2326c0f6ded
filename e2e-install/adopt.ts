/**
 * Installs the packed GPU plugins into a new app from `@backstage/create-app`, the way the package READMEs tell an
 * adopter to: the tarballs as dependencies of packages/backend and packages/app, root `resolutions` mapping every
 * plugin package to its tarball (so gpu-backend's own dependencies on gpu-common and gpu-node need no registry),
 * `backend.add(import(...))` for the backend plugin and the scaffolder module, the `gpu` config and the "GPU model
 * service" template. The frontend plugin needs no code: the app discovers it (`app.packages: all`).
 *
 *   node --require sucrase/register e2e-install/adopt.ts <app dir> <packs dir> <port>
 *
 * `<packs dir>` holds `<plugin directory>.tgz` for each of PLUGINS (scripts/install-test packs them).
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { mergeConfig } from './mergeConfig';

const REPO_ROOT = resolve(__dirname, '..');

/** The packed plugins, by directory under plugins/, and the app package that depends on each (if any). */
export const PLUGINS = [
  { dir: 'gpu-common' },
  { dir: 'gpu-node' },
  { dir: 'gpu-backend', usedBy: 'backend' },
  { dir: 'scaffolder-backend-module-gpu', usedBy: 'backend' },
  { dir: 'gpu', usedBy: 'app' },
] as const;

type Json = Record<string, any>;

function readJson(path: string): Json {
  return JSON.parse(readFileSync(path, 'utf8'));
}

function writeJson(path: string, value: Json) {
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

function packageName(dir: string): string {
  return readJson(join(REPO_ROOT, 'plugins', dir, 'package.json')).name;
}

/**
 * Pins every `@backstage/*` package of the new app to the Backstage release the plugins are built against (1.57):
 * this repository's root `resolutions`, which list every package of create-app's template as well as the
 * plugins' own. The latest create-app (0.9.2) still writes an older release's versions (`^<version>`), so its pins
 * are kept only for packages the resolutions do not name, and the app ends where `backstage-cli versions:bump`
 * would take it. Without one release on both sides, later patches float in: @backstage/plugin-signals-backend
 * 0.3.21 on backend-defaults 0.18.0 fails at start-up ("httpRouter.addWebSocketHandler is not a function").
 */
function backstageRelease(manifests: Json[]): Record<string, string> {
  const { resolutions } = readJson(join(REPO_ROOT, 'package.json'));
  const pins: Record<string, string> = {};
  for (const [name, version] of Object.entries<string>(resolutions)) {
    if (name.startsWith('@backstage/')) pins[name] = version;
  }
  for (const manifest of manifests) {
    for (const deps of [manifest.dependencies, manifest.devDependencies]) {
      for (const [name, range] of Object.entries<string>(deps ?? {})) {
        const exact = /^\^(\d+\.\d+\.\d+)$/.exec(range);
        if (name.startsWith('@backstage/') && exact && !(name in pins)) {
          pins[name] = exact[1];
        }
      }
    }
  }
  return pins;
}

function addDependencies(appDir: string, packsDir: string) {
  mkdirSync(join(appDir, 'vendor'), { recursive: true });
  const root = readJson(join(appDir, 'package.json'));
  const workspaces: Record<string, Json> = {
    backend: readJson(join(appDir, 'packages/backend/package.json')),
    app: readJson(join(appDir, 'packages/app/package.json')),
  };
  root.resolutions = {
    ...root.resolutions,
    ...backstageRelease([root, workspaces.backend, workspaces.app]),
  };
  for (const plugin of PLUGINS) {
    const name = packageName(plugin.dir);
    const tarball = `vendor/${plugin.dir}.tgz`;
    copyFileSync(join(packsDir, `${plugin.dir}.tgz`), join(appDir, tarball));
    root.resolutions[name] = `file:./${tarball}`;
    if ('usedBy' in plugin) {
      const manifest = workspaces[plugin.usedBy];
      manifest.dependencies[name] = `file:../../${tarball}`;
    }
  }
  writeJson(join(appDir, 'package.json'), root);
  writeJson(join(appDir, 'packages/backend/package.json'), workspaces.backend);
  writeJson(join(appDir, 'packages/app/package.json'), workspaces.app);
}

function addBackendFeatures(appDir: string) {
  const path = join(appDir, 'packages/backend/src/index.ts');
  const source = readFileSync(path, 'utf8');
  const start = 'backend.start();';
  if (!source.includes(start)) {
    throw new Error(`${path} has no "${start}" to add the GPU plugins before`);
  }
  const lines = ['gpu-backend', 'scaffolder-backend-module-gpu']
    .map(dir => `backend.add(import('${packageName(dir)}'));`)
    .join('\n');
  writeFileSync(
    path,
    source.replace(start, `// GPU model services\n${lines}\n\n${start}`),
  );
}

function addConfig(appDir: string, port: number) {
  const path = join(appDir, 'app-config.yaml');
  const config = parseDocument(readFileSync(path, 'utf8'));
  mergeConfig(
    config,
    parseDocument(
      readFileSync(join(__dirname, 'app-config.gpu.yaml'), 'utf8'),
    ).toJS(),
  );
  // The backend serves the built app (app-backend), so both live on one port.
  const baseUrl = `http://localhost:${port}`;
  mergeConfig(config, {
    app: { baseUrl },
    backend: { baseUrl, listen: { port }, cors: { origin: baseUrl } },
  });
  writeFileSync(
    path,
    config.toString({ flowCollectionPadding: false, lineWidth: 0 }),
  );
}

function addTemplate(appDir: string) {
  const target = join(appDir, 'templates/gpu-model-service');
  mkdirSync(target, { recursive: true });
  copyFileSync(
    join(REPO_ROOT, 'templates/gpu-model-service/template.yaml'),
    join(target, 'template.yaml'),
  );
  mkdirSync(join(appDir, 'local-catalog'), { recursive: true });
}

function main() {
  const [appDir, packsDir, port] = process.argv.slice(2);
  if (!appDir || !packsDir || !/^\d+$/.test(port ?? '')) {
    throw new Error('usage: adopt.ts <app dir> <packs dir> <port>');
  }
  addDependencies(resolve(appDir), resolve(packsDir));
  addBackendFeatures(resolve(appDir));
  addConfig(resolve(appDir), Number(port));
  addTemplate(resolve(appDir));
}

if (require.main === module) {
  main();
}
