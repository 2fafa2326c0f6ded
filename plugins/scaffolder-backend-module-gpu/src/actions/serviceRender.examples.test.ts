import {
  createMockDirectory,
  mockServices,
  registerMswTestHooks,
} from '@backstage/backend-test-utils';
import fs from 'node:fs';
import path from 'node:path';
import { setupServer } from 'msw/node';
import yaml from 'yaml';
import { mockContext, outputsOf } from '../__testUtils__/actionContext';
import { fakeGpuBackend } from '../__testUtils__/fakeGpuBackend';
import { summariserOnDedicatedL4 } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import { createServiceRenderAction } from './serviceRender';
import { examples } from './serviceRender.examples';

describe('gpu:service:render examples', () => {
  const backend = fakeGpuBackend();
  const server = setupServer(...backend.handlers);
  registerMswTestHooks(server);
  const dir = createMockDirectory();

  it.each(examples.map(e => [e.description, e] as const))(
    '%s',
    async (_, example) => {
      backend.reset();
      dir.clear();
      const input = yaml.parse(example.example).steps[0].input;
      backend.seed(
        { request: summariserOnDedicatedL4, mode: 'gitops' },
        input.serviceId,
      );
      const ctx = mockContext(input, { workspacePath: dir.path });
      await createServiceRenderAction({
        discovery: mockServices.discovery(),
        auth: mockServices.auth(),
      }).handler(ctx);
      const { files } = outputsOf(ctx);
      for (const file of files) {
        expect(fs.existsSync(path.join(dir.path, input.targetDir, file))).toBe(
          true,
        );
      }
      const kinds = files
        .map((f: string) =>
          yaml.parseAllDocuments(
            fs.readFileSync(path.join(dir.path, input.targetDir, f), 'utf8'),
          ),
        )
        .flat()
        .map((d: yaml.Document) => d.toJS().kind);
      expect(kinds).toEqual(
        expect.arrayContaining(['LocalQueue', 'Service', 'Deployment']),
      );
    },
  );
});
