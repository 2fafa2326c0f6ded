import {
  createMockDirectory,
  mockServices,
  registerMswTestHooks,
} from '@backstage/backend-test-utils';
import { PlatformManifestsResponse } from '@gpu-platform/backstage-plugin-gpu-common';
import fs from 'node:fs';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import yaml from 'yaml';
import { mockContext, outputsOf } from '../__testUtils__/actionContext';
import { GPU_BASE_URL } from '../__testUtils__/fakeGpuBackend';
import { createPlatformRenderAction } from './platformRender';

/** What the gpu backend answers for the GitOps cluster gpu-gitops (the files' content is the backend's). */
const ANSWER: PlatformManifestsResponse = {
  cluster: 'gpu-gitops',
  mode: 'gitops',
  files: [
    {
      path: 'kueue/cohort-gpu.yaml',
      content:
        '---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: Cohort\nmetadata:\n  name: gpu\n',
    },
    {
      path: 'kustomization.yaml',
      content: yaml.stringify({ resources: ['kueue/cohort-gpu.yaml'] }),
    },
  ],
  absent: [{ part: 'karpenter', reason: 'No pool is managed by Karpenter' }],
};

describe('gpu:platform:render', () => {
  const requests: { url: URL; authorization: string | null }[] = [];
  let answer: () => Response = () => HttpResponse.json(ANSWER);
  const server = setupServer(
    http.get(`${GPU_BASE_URL}/platform/manifests`, ({ request }) => {
      requests.push({
        url: new URL(request.url),
        authorization: request.headers.get('authorization'),
      });
      return answer();
    }),
  );
  registerMswTestHooks(server);
  const dir = createMockDirectory();
  const action = createPlatformRenderAction({
    discovery: mockServices.discovery(),
    auth: mockServices.auth(),
  });

  beforeEach(() => {
    requests.length = 0;
    answer = () => HttpResponse.json(ANSWER);
    dir.clear();
  });

  it("writes the backend's files under targetDir with the initiator's token and outputs them", async () => {
    const ctx = mockContext(
      { cluster: 'gpu-gitops' },
      { workspacePath: dir.path },
    );
    await action.handler(ctx);

    expect(requests).toHaveLength(1);
    expect(requests[0].url.searchParams.get('cluster')).toBe('gpu-gitops');
    expect(requests[0].authorization).toMatch(/^Bearer /);
    expect(outputsOf(ctx)).toEqual({
      targetDir: 'platform',
      files: ['kueue/cohort-gpu.yaml', 'kustomization.yaml'],
      mode: 'gitops',
      modeText: 'delivered through a pull request to the GitOps repository',
      absent: ANSWER.absent,
    });
    expect(dir.content({ path: 'platform' })).toEqual({
      kueue: { 'cohort-gpu.yaml': ANSWER.files[0].content },
      'kustomization.yaml': ANSWER.files[1].content,
    });
  });

  it.each([
    [
      { cluster: 'gpu-gitops', targetDir: '../outside' },
      /targetDir: '..\/outside' is outside the workspace/,
    ],
    [
      { cluster: 'gpu-gitops', targetDir: '/etc' },
      /targetDir: '\/etc' is outside the workspace/,
    ],
    [{ cluster: '' }, /cluster: String must contain at least 1 character/],
    [{}, /cluster: Required/],
  ])(
    'rejects %j with an InputError naming the field, before any call',
    async (input, message) => {
      await expect(
        action.handler(mockContext(input, { workspacePath: dir.path })),
      ).rejects.toMatchObject({ name: 'InputError', message });
      expect(requests).toEqual([]);
      expect(fs.readdirSync(dir.path)).toEqual([]);
    },
  );

  it("names the cluster in the backend's 400, and passes a 403 on as NotAllowedError", async () => {
    answer = () =>
      HttpResponse.json(
        {
          error: {
            name: 'InputError',
            message:
              "Unknown cluster 'gpu-us'; configured clusters are gpu-gitops",
          },
          response: { statusCode: 400 },
        },
        { status: 400 },
      );
    await expect(
      action.handler(
        mockContext({ cluster: 'gpu-us' }, { workspacePath: dir.path }),
      ),
    ).rejects.toMatchObject({
      name: 'InputError',
      message: expect.stringMatching(
        /^Invalid input to gpu:platform:render: cluster: Unknown cluster 'gpu-us'; configured clusters are gpu-gitops/,
      ),
    });

    answer = () =>
      HttpResponse.json(
        {
          error: {
            name: 'NotAllowedError',
            message: 'You are not allowed to read the platform manifests',
          },
          response: { statusCode: 403 },
        },
        { status: 403 },
      );
    await expect(
      action.handler(
        mockContext({ cluster: 'gpu-gitops' }, { workspacePath: dir.path }),
      ),
    ).rejects.toMatchObject({
      name: 'NotAllowedError',
      message: /^You are not allowed to read the platform manifests/,
    });
    expect(fs.readdirSync(dir.path)).toEqual([]);
  });

  it('writes nothing when a file of the answer would land outside targetDir', async () => {
    answer = () =>
      HttpResponse.json({
        ...ANSWER,
        files: [ANSWER.files[0], { path: '../../escape.yaml', content: 'x' }],
      });
    await expect(
      action.handler(
        mockContext({ cluster: 'gpu-gitops' }, { workspacePath: dir.path }),
      ),
    ).rejects.toMatchObject({
      name: 'InputError',
      message: /a file outside targetDir: '..\/..\/escape.yaml'/,
    });
    expect(fs.readdirSync(dir.path)).toEqual([]);
  });
});
