import {
  mockServices,
  registerMswTestHooks,
} from '@backstage/backend-test-utils';
import { setupServer } from 'msw/node';
import yaml from 'yaml';
import { mockContext, outputsOf } from '../__testUtils__/actionContext';
import { fakeCatalog } from '../__testUtils__/fakeCatalog';
import { fakeGpuBackend } from '../__testUtils__/fakeGpuBackend';
import { summariserOnDedicatedL4 } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import { createServiceDeleteAction } from './serviceDelete';
import { examples } from './serviceDelete.examples';

describe('gpu:service:delete examples', () => {
  const backend = fakeGpuBackend();
  const server = setupServer(...backend.handlers);
  registerMswTestHooks(server);

  it.each(examples.map(e => [e.description, e] as const))(
    '%s',
    async (_, example) => {
      backend.reset();
      const input = yaml.parse(example.example).steps[0].input;
      const service = backend.seed(
        {
          request: summariserOnDedicatedL4,
          entityRef: 'component:default/summariser',
        },
        input.serviceId,
      );
      const catalog = fakeCatalog();
      catalog.seed(
        {
          apiVersion: 'backstage.io/v1alpha1',
          kind: 'Component',
          metadata: { name: 'summariser' },
        },
        'url:https://github.com/acme/summariser/blob/main/catalog-info.yaml',
        { registeredLocation: true },
      );
      const action = createServiceDeleteAction({
        discovery: mockServices.discovery(),
        auth: mockServices.auth(),
        catalog: catalog.catalog,
      });
      const ctx = mockContext(input);
      await action.handler(ctx);
      expect(outputsOf(ctx)).toMatchObject({
        deleted: [{ serviceId: service.id, status: 'deleted' }],
        alreadyDeleted: false,
        unregistered: input.unregister ? 'removed' : 'skipped',
      });
      expect(catalog.entities.has('component:default/summariser')).toBe(
        !input.unregister,
      );
    },
  );
});
