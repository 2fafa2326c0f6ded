import {
  createMockDirectory,
  mockServices,
} from '@backstage/backend-test-utils';
import yaml from 'yaml';
import { mockContext, outputsOf } from '../__testUtils__/actionContext';
import { fakeCatalog } from '../__testUtils__/fakeCatalog';
import { LocalCatalogDirectory } from '../catalog/LocalCatalogDirectory';
import { createCatalogRegisterAction } from './catalogRegister';
import { examples } from './catalogRegister.examples';

describe('gpu:catalog:register examples', () => {
  const dir = createMockDirectory();

  it.each(examples.map(e => [e.description, e] as const))(
    '%s',
    async (_, example) => {
      const input = yaml.parse(example.example).steps[0].input;
      const entity = {
        apiVersion: 'backstage.io/v1alpha1',
        kind: 'Component',
        metadata: { name: 'summariser' },
        spec: {
          type: 'service',
          lifecycle: 'production',
          owner: 'ml-platform',
        },
      };
      dir.setContent({
        'local-catalog': {},
        [`workspace/${input.catalogInfoPath}`]: yaml.stringify(entity),
      });
      const local = new LocalCatalogDirectory(
        dir.resolve('local-catalog'),
        dir.resolve('local-catalog/*.yaml'),
      );
      const fake = fakeCatalog(local);
      const ctx = mockContext(input, {
        workspacePath: dir.resolve('workspace'),
      });
      await createCatalogRegisterAction({
        catalog: fake.catalog,
        userInfo: mockServices.userInfo({
          ownershipEntityRefs: ['group:default/ml-platform'],
        }),
        localCatalog: local,
      }).handler(ctx);
      expect(outputsOf(ctx).entityRef).toBe('component:default/summariser');
      expect(fake.entities.has('component:default/summariser')).toBe(true);
    },
  );
});
