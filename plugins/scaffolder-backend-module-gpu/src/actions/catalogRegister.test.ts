import {
  createMockDirectory,
  mockServices,
} from '@backstage/backend-test-utils';
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'yaml';
import { mockContext, outputsOf } from '../__testUtils__/actionContext';
import { fakeCatalog } from '../__testUtils__/fakeCatalog';
import { LocalCatalogDirectory } from '../catalog/LocalCatalogDirectory';
import { createCatalogRegisterAction } from './catalogRegister';

const component = {
  apiVersion: 'backstage.io/v1alpha1',
  kind: 'Component',
  metadata: {
    name: 'summariser',
    annotations: {
      'gpu.backstage.io/service-id': '6a1f0d52-53f6-4a55-9b8e-0d7e4c0f4d11',
    },
  },
  spec: {
    type: 'service',
    lifecycle: 'production',
    owner: 'group:default/ml-platform',
  },
};

describe('gpu:catalog:register', () => {
  const dir = createMockDirectory();
  let local: LocalCatalogDirectory;
  let workspace: string;

  beforeEach(() => {
    dir.clear();
    dir.addContent({
      'local-catalog': {},
      workspace: { 'catalog-info.yaml': yaml.stringify(component) },
    });
    local = new LocalCatalogDirectory(
      dir.resolve('local-catalog'),
      dir.resolve('local-catalog/*.yaml'),
    );
    workspace = dir.resolve('workspace');
  });

  it('writes the entity into the local catalog directory, refreshes its location and waits for the entity', async () => {
    const fake = fakeCatalog(local);
    const action = createCatalogRegisterAction({
      catalog: fake.catalog,
      localCatalog: local,
    });
    const ctx = mockContext({}, { workspacePath: workspace });
    await action.handler(ctx);

    expect(outputsOf(ctx)).toEqual({
      entityRef: 'component:default/summariser',
    });
    const file = path.join(
      local.directory,
      'component-default-summariser.yaml',
    );
    expect(yaml.parse(fs.readFileSync(file, 'utf8'))).toEqual(component);
    expect(fake.calls).toContain(`refreshEntity ${local.locationEntityRef}`);
    expect(
      fake.entities.get('component:default/summariser')?.metadata.annotations,
    ).toMatchObject({
      'backstage.io/managed-by-location': `file:${file}`,
    });

    // Registering again (a retried step) rewrites the same file.
    await action.handler(mockContext({}, { workspacePath: workspace }));
    expect(fs.readdirSync(local.directory)).toEqual([
      'component-default-summariser.yaml',
    ]);
  });

  it('names the Location entity the catalog makes of the configured file location', () => {
    expect(local.locationEntityRef).toMatch(
      /^location:default\/generated-[0-9a-f]{40}$/,
    );
  });

  it('refuses an entity defined elsewhere, a path outside the workspace and a missing file', async () => {
    const fake = fakeCatalog(local);
    fake.seed(
      component,
      'url:https://github.com/acme/summariser/blob/main/catalog-info.yaml',
    );
    const action = createCatalogRegisterAction({
      catalog: fake.catalog,
      localCatalog: local,
    });
    await expect(
      action.handler(mockContext({}, { workspacePath: workspace })),
    ).rejects.toMatchObject({
      name: 'ConflictError',
      message: /already in the catalog, defined in url:https:\/\/github.com/,
    });
    await expect(
      action.handler(
        mockContext(
          { catalogInfoPath: '../../etc/passwd' },
          { workspacePath: workspace },
        ),
      ),
    ).rejects.toMatchObject({
      name: 'InputError',
      message: /catalogInfoPath: .* outside the workspace/,
    });
    await expect(
      action.handler(
        mockContext(
          { catalogInfoPath: 'nope.yaml' },
          { workspacePath: workspace },
        ),
      ),
    ).rejects.toMatchObject({
      name: 'InputError',
      message: /catalogInfoPath: nope.yaml does not exist/,
    });
    expect(fs.readdirSync(local.directory)).toEqual([]);
  });

  it('in a dry run validates and answers the ref without writing', async () => {
    const fake = fakeCatalog(local);
    const action = createCatalogRegisterAction({
      catalog: fake.catalog,
      localCatalog: local,
    });
    const ctx = mockContext({}, { workspacePath: workspace, isDryRun: true });
    await action.handler(ctx);
    expect(outputsOf(ctx)).toEqual({
      entityRef: 'component:default/summariser',
    });
    expect(fs.readdirSync(local.directory)).toEqual([]);
    expect(fake.calls.some(c => c.startsWith('refreshEntity'))).toBe(false);
  });

  it('says what to configure when there is no local catalog directory', async () => {
    const action = createCatalogRegisterAction({
      catalog: fakeCatalog().catalog,
    });
    await expect(
      action.handler(mockContext({}, { workspacePath: workspace })),
    ).rejects.toThrow(/scaffolder.gpu.catalogDirectory/);
  });
});

describe('LocalCatalogDirectory.fromConfig', () => {
  it('finds the catalog location that reads the directory, or says what is missing', () => {
    const config = (locations: { type: string; target: string }[]) =>
      mockServices.rootConfig({
        data: {
          scaffolder: { gpu: { catalogDirectory: '/srv/local-catalog' } },
          catalog: { locations },
        },
      });
    const found = LocalCatalogDirectory.fromConfig(
      config([{ type: 'file', target: '/srv/local-catalog/*.yaml' }]),
    )!;
    expect(found.directory).toBe('/srv/local-catalog');
    expect(found.locationTarget).toBe('/srv/local-catalog/*.yaml');
    expect(() => LocalCatalogDirectory.fromConfig(config([]))).toThrow(
      /no catalog.locations entry of type file reads it/,
    );
    expect(
      LocalCatalogDirectory.fromConfig(mockServices.rootConfig({ data: {} })),
    ).toBeUndefined();
  });
});
