import {
  createMockDirectory,
  mockServices,
  registerMswTestHooks,
} from '@backstage/backend-test-utils';
import fs from 'node:fs';
import path from 'node:path';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import yaml from 'yaml';
import { mockContext, outputsOf } from '../__testUtils__/actionContext';
import { GPU_BASE_URL } from '../__testUtils__/fakeGpuBackend';
import { createPlatformRenderAction } from './platformRender';
import { examples } from './platformRender.examples';

describe('gpu:platform:render examples', () => {
  const server = setupServer(
    http.get(`${GPU_BASE_URL}/platform/manifests`, ({ request }) =>
      HttpResponse.json({
        cluster: new URL(request.url).searchParams.get('cluster'),
        mode: 'gitops',
        files: [
          {
            path: 'kueue/cohort-gpu.yaml',
            content: yaml.stringify({ kind: 'Cohort' }),
          },
          {
            path: 'kustomization.yaml',
            content: yaml.stringify({ resources: ['kueue/cohort-gpu.yaml'] }),
          },
        ],
        absent: [],
      }),
    ),
  );
  registerMswTestHooks(server);
  const dir = createMockDirectory();

  it.each(examples.map(e => [e.description, e] as const))(
    '%s',
    async (_, example) => {
      dir.clear();
      const input = yaml.parse(example.example).steps[0].input;
      const ctx = mockContext(input, { workspacePath: dir.path });
      await createPlatformRenderAction({
        discovery: mockServices.discovery(),
        auth: mockServices.auth(),
      }).handler(ctx);
      const { files, targetDir } = outputsOf(ctx);
      expect(targetDir).toBe(input.targetDir ?? 'platform');
      expect(files).toEqual(['kueue/cohort-gpu.yaml', 'kustomization.yaml']);
      for (const file of files) {
        expect(fs.existsSync(path.join(dir.path, targetDir, file))).toBe(true);
      }
    },
  );
});
