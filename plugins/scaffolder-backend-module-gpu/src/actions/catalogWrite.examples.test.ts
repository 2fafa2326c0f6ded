import {
  createMockDirectory,
  mockServices,
} from '@backstage/backend-test-utils';
import { componentEntityV1alpha1Validator } from '@backstage/catalog-model';
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'yaml';
import { mockContext, outputsOf } from '../__testUtils__/actionContext';
import { createCatalogWriteAction } from './catalogWrite';
import { examples } from './catalogWrite.examples';

describe('gpu:catalog:write examples', () => {
  const dir = createMockDirectory();
  const action = createCatalogWriteAction({
    userInfo: mockServices.userInfo({
      ownershipEntityRefs: ['group:default/ml-platform'],
    }),
  });

  it.each(examples.map(e => [e.description, e] as const))(
    '%s',
    async (_, example) => {
      dir.setContent({ workspace: {} });
      const input = yaml.parse(example.example).steps[0].input;
      const ctx = mockContext(input, {
        workspacePath: dir.resolve('workspace'),
      });
      await action.handler(ctx);
      const out = outputsOf(ctx);
      expect(out).toEqual({
        entityRef: `component:default/${input.name}`,
        catalogInfoPath: input.targetPath ?? 'catalog-info.yaml',
      });
      const entity = yaml.parse(
        fs.readFileSync(
          path.join(dir.resolve('workspace'), out.catalogInfoPath),
          'utf8',
        ),
      );
      expect(await componentEntityV1alpha1Validator.check(entity)).toBe(true);
      expect(entity.spec.owner).toBe(input.owner);
    },
  );
});
