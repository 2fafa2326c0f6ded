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

const userInfo = mockServices.userInfo({
  ownershipEntityRefs: ['user:default/mock', 'group:default/ml-platform'],
});

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
      userInfo,
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

  it("binds the team's own component defined elsewhere as it is: no file written, the catalog asked to process it", async () => {
    const fake = fakeCatalog(local);
    const { annotations: _bound, ...unbound } = component.metadata;
    fake.seed(
      { ...component, metadata: unbound },
      'file:/srv/backstage/examples/entities.yaml',
    );
    // The catalog's binding processor gives the entity its service id when it processes it.
    const refresh = fake.catalog.refreshEntity.bind(fake.catalog);
    fake.catalog.refreshEntity = async (ref, options) => {
      await refresh(ref, options);
      const entity = fake.entities.get('component:default/summariser');
      if (ref === 'component:default/summariser' && entity) {
        entity.metadata.annotations = {
          ...entity.metadata.annotations,
          ...component.metadata.annotations,
        };
      }
    };
    const action = createCatalogRegisterAction({
      catalog: fake.catalog,
      userInfo,
      localCatalog: local,
    });
    const ctx = mockContext({}, { workspacePath: workspace });
    await action.handler(ctx);
    expect(outputsOf(ctx)).toEqual({
      entityRef: 'component:default/summariser',
    });
    expect(fs.readdirSync(local.directory)).toEqual([]);
    expect(fake.calls).toContain('refreshEntity component:default/summariser');
    expect(fake.calls).not.toContain(
      `refreshEntity ${local.locationEntityRef}`,
    );
    expect(
      fake.entities.get('component:default/summariser')?.metadata.annotations,
    ).toMatchObject({
      'backstage.io/managed-by-location':
        'file:/srv/backstage/examples/entities.yaml',
      'gpu.backstage.io/service-id': '6a1f0d52-53f6-4a55-9b8e-0d7e4c0f4d11',
    });
  });

  it('refuses a path outside the workspace and a missing file', async () => {
    const fake = fakeCatalog(local);
    const action = createCatalogRegisterAction({
      catalog: fake.catalog,
      userInfo,
      localCatalog: local,
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

  describe('another team', () => {
    const theirs = {
      ...component,
      metadata: { ...component.metadata, description: 'Search ranking' },
      spec: { ...component.spec, owner: 'group:default/search' },
    };
    const theirFile = () =>
      path.join(local.directory, 'component-default-summariser.yaml');

    it("refuses to take over another team's component: the entity, its file and the catalog stay as they were", async () => {
      const fake = fakeCatalog(local);
      fs.writeFileSync(theirFile(), yaml.stringify(theirs));
      await fake.catalog.refreshEntity(local.locationEntityRef, {} as any);
      const before = fake.entities.get('component:default/summariser');
      expect(before?.spec?.owner).toBe('group:default/search');
      const action = createCatalogRegisterAction({
        catalog: fake.catalog,
        userInfo,
        localCatalog: local,
      });

      for (const isDryRun of [false, true]) {
        await expect(
          action.handler(
            mockContext({}, { workspacePath: workspace, isDryRun }),
          ),
        ).rejects.toMatchObject({
          name: 'NotAllowedError',
          message:
            /^component:default\/summariser is owned by group:default\/search; a GPU service of group:default\/ml-platform cannot be bound to it/,
        });
      }
      expect(yaml.parse(fs.readFileSync(theirFile(), 'utf8'))).toEqual(theirs);
      expect(fs.readdirSync(local.directory)).toEqual([
        'component-default-summariser.yaml',
      ]);
      expect(fake.entities.get('component:default/summariser')).toBe(before);
      expect(
        fake.calls.filter(c => c.startsWith('refreshEntity')),
      ).toHaveLength(1); // the test's own refresh
    });

    it('refuses to overwrite their file even when the catalog does not show the entity (not read yet, or not visible to the user)', async () => {
      const fake = fakeCatalog(local);
      fs.writeFileSync(theirFile(), yaml.stringify(theirs));
      // Upper case in the name: the same entity, so the same file.
      fs.writeFileSync(
        path.join(workspace, 'catalog-info.yaml'),
        yaml.stringify({
          ...component,
          metadata: { ...component.metadata, name: 'Summariser' },
        }),
      );
      const action = createCatalogRegisterAction({
        catalog: fake.catalog,
        userInfo,
        localCatalog: local,
      });
      await expect(
        action.handler(mockContext({}, { workspacePath: workspace })),
      ).rejects.toMatchObject({
        name: 'NotAllowedError',
        message:
          /^component:default\/summariser is owned by group:default\/search \(file component-default-summariser.yaml of the local catalog directory\)/,
      });
      expect(yaml.parse(fs.readFileSync(theirFile(), 'utf8'))).toEqual(theirs);
      expect(fs.readdirSync(local.directory)).toEqual([
        'component-default-summariser.yaml',
      ]);
      expect(fake.entities.size).toBe(0);
    });

    it('refuses an owner the user is not a member of, an owner that is not a group and a kind other than Component', async () => {
      const fake = fakeCatalog(local);
      const action = createCatalogRegisterAction({
        catalog: fake.catalog,
        userInfo,
        localCatalog: local,
      });
      const run = (entity: object) => {
        fs.writeFileSync(
          path.join(workspace, 'catalog-info.yaml'),
          yaml.stringify(entity),
        );
        return action.handler(mockContext({}, { workspacePath: workspace }));
      };
      await expect(run(theirs)).rejects.toMatchObject({
        name: 'NotAllowedError',
        message:
          'user:default/mock is not a member of group:default/search and cannot register entities owned by it',
      });
      await expect(
        run({
          ...component,
          spec: { ...component.spec, owner: 'user:default/mock' },
        }),
      ).rejects.toMatchObject({
        name: 'InputError',
        message:
          /catalogInfoPath: catalog-info.yaml: spec.owner: .* only a group/,
      });
      await expect(
        run({
          ...component,
          spec: {
            ...component.spec,
            owner: 'group:default/ml-platform\nsystem: x',
          },
        }),
      ).rejects.toMatchObject({
        name: 'InputError',
        message: /spec.owner: .* invalid name/,
      });
      await expect(
        run({ ...component, kind: 'Group', spec: { type: 'team' } }),
      ).rejects.toMatchObject({
        name: 'InputError',
        message: /only a component/,
      });
      expect(fs.readdirSync(local.directory)).toEqual([]);
      expect(fake.calls.some(c => c.startsWith('refreshEntity'))).toBe(false);
    });
  });

  it("re-registers the team's own component from the local catalog directory (a second run of the template)", async () => {
    const fake = fakeCatalog(local);
    const action = createCatalogRegisterAction({
      catalog: fake.catalog,
      userInfo,
      localCatalog: local,
    });
    await action.handler(mockContext({}, { workspacePath: workspace }));
    const updated = {
      ...component,
      metadata: { ...component.metadata, description: 'Now on MIG' },
      // The same owner written differently resolves to the same group.
      spec: { ...component.spec, owner: 'ml-platform' },
    };
    fs.writeFileSync(
      path.join(workspace, 'catalog-info.yaml'),
      yaml.stringify(updated),
    );
    const ctx = mockContext({}, { workspacePath: workspace });
    await action.handler(ctx);
    expect(outputsOf(ctx).entityRef).toBe('component:default/summariser');
    expect(
      fake.entities.get('component:default/summariser')?.metadata.description,
    ).toBe('Now on MIG');
    expect(fs.readdirSync(local.directory)).toEqual([
      'component-default-summariser.yaml',
    ]);
  });

  it('in a dry run validates and answers the ref without writing', async () => {
    const fake = fakeCatalog(local);
    const action = createCatalogRegisterAction({
      catalog: fake.catalog,
      userInfo,
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
      userInfo,
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
