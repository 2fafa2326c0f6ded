import {
  createMockDirectory,
  mockCredentials,
  mockServices,
} from '@backstage/backend-test-utils';
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'yaml';
import { mockContext, outputsOf } from '../__testUtils__/actionContext';
import { createCatalogWriteAction } from './catalogWrite';

const annotations = {
  'backstage.io/kubernetes-id': 'summariser',
  'backstage.io/kubernetes-namespace': 'ml-platform',
  'gpu.backstage.io/service-id': '6a1f0d52-53f6-4a55-9b8e-0d7e4c0f4d11',
};

const input = {
  name: 'summariser',
  owner: 'group:default/ml-platform',
  description: 'Summarises support tickets',
  lifecycle: 'production',
  system: 'model-serving',
  tags: ['gpu', 'vllm', 'dedicated'],
  annotations,
  links: [
    {
      url: 'http://summariser.ml-platform.svc.cluster.local:8000',
      title: 'Endpoint inside the cluster',
    },
  ],
};

describe('gpu:catalog:write', () => {
  const dir = createMockDirectory();
  const workspace = () => dir.resolve('workspace');
  const written = () =>
    fs.readFileSync(path.join(workspace(), 'catalog-info.yaml'), 'utf8');
  const action = createCatalogWriteAction({
    userInfo: mockServices.userInfo({
      ownershipEntityRefs: ['user:default/mock', 'group:default/ml-platform'],
    }),
  });
  const run = (values: object, options: { isDryRun?: boolean } = {}) => {
    const ctx = mockContext(values, { workspacePath: workspace(), ...options });
    return action.handler(ctx).then(() => ctx);
  };

  beforeEach(() => dir.setContent({ workspace: {} }));

  it('writes exactly the Component the inputs describe, serialised by the yaml library', async () => {
    const ctx = await run(input);
    expect(outputsOf(ctx)).toEqual({
      entityRef: 'component:default/summariser',
      catalogInfoPath: 'catalog-info.yaml',
    });
    const documents = yaml.parseAllDocuments(written());
    expect(documents).toHaveLength(1);
    expect(documents[0].toJS()).toEqual({
      apiVersion: 'backstage.io/v1alpha1',
      kind: 'Component',
      metadata: {
        name: 'summariser',
        description: 'Summarises support tickets',
        annotations,
        tags: ['gpu', 'vllm', 'dedicated'],
        links: input.links,
      },
      spec: {
        type: 'service',
        lifecycle: 'production',
        owner: 'group:default/ml-platform',
        system: 'model-serving',
      },
    });
  });

  it('writes the same file in a dry run (the workspace is all it touches) and defaults type and lifecycle', async () => {
    await run({ name: 'chatbot', owner: 'ml-platform' }, { isDryRun: true });
    expect(yaml.parse(written())).toEqual({
      apiVersion: 'backstage.io/v1alpha1',
      kind: 'Component',
      metadata: { name: 'chatbot' },
      spec: {
        type: 'service',
        lifecycle: 'experimental',
        owner: 'group:default/ml-platform',
      },
    });
  });

  it('renders YAML injection in free text inert: the file reads back with exactly the intended keys', async () => {
    const payloads = [
      'x\nspec:\n  owner: group:default/search',
      'x\n---\napiVersion: backstage.io/v1alpha1\nkind: Location\nspec: { target: /etc }',
      '"quoted": yes, {flow: map}, [list], &anchor *alias !!binary #comment',
      'key: value\n  indented: \'single\' "double" ${{ parameters.name }} {% raw %}',
    ];
    for (const description of payloads) {
      await run({
        ...input,
        description,
        links: [{ url: input.links[0].url, title: description }],
      });
      const documents = yaml.parseAllDocuments(written());
      expect(documents).toHaveLength(1);
      const entity = documents[0].toJS();
      expect(Object.keys(entity)).toEqual([
        'apiVersion',
        'kind',
        'metadata',
        'spec',
      ]);
      expect(Object.keys(entity.metadata)).toEqual([
        'name',
        'description',
        'annotations',
        'tags',
        'links',
      ]);
      expect(entity.metadata.description).toBe(description.trim());
      expect(entity.metadata.links[0].title).toBe(description);
      expect(entity.spec).toEqual({
        type: 'service',
        lifecycle: 'production',
        owner: 'group:default/ml-platform',
        system: 'model-serving',
      });
    }
  });

  it.each([
    [
      'an owner with a newline injecting keys',
      { owner: 'group:default/ml-platform\nsystem: evil\n  x: y' },
      /owner: .* invalid name/,
    ],
    [
      'an owner injecting a flow mapping',
      { owner: 'group:default/ml-platform, evil: true}' },
      /owner: .* invalid name/,
    ],
    [
      'a user as owner',
      { owner: 'user:default/mock' },
      /owner: .* only a group/,
    ],
    ['an empty owner', { owner: '' }, /owner: .* is not an entity ref/],
    [
      'a name with a newline',
      { name: 'summariser\nspec: {}' },
      /name: "summariser\\nspec: {}" is not a valid entity name/,
    ],
    ['a name longer than 63', { name: 'a'.repeat(64) }, /name: .* not a valid/],
    [
      'a lifecycle with a newline',
      { lifecycle: 'production\nowner: x' },
      /lifecycle: must be a lower-case word/,
    ],
    [
      'a type with a colon',
      { type: 'service: x' },
      /type: must be a lower-case/,
    ],
    [
      'a system that is not a System ref',
      { system: 'group:default/search' },
      /system: .* is not a System ref/,
    ],
    [
      'a system with a newline',
      { system: 'model-serving\nowner: x' },
      /system: .* not a System ref/,
    ],
    [
      'a tag with a newline',
      { tags: ['gpu\nx: y'] },
      /tags: .* is not a valid tag/,
    ],
    [
      'an annotation key with a newline',
      { annotations: { 'a\nb': 'c' } },
      /annotations: .* is not a valid key/,
    ],
    [
      'an annotation the catalog sets itself',
      {
        annotations: {
          'backstage.io/managed-by-location': 'file:/etc/passwd',
        },
      },
      /annotations: backstage.io\/managed-by-location is set by the catalog itself/,
    ],
    [
      'a link that is not http(s)',
      { links: [{ url: 'file:///etc/passwd' }] },
      /links: .* is not an http\(s\) URL/,
    ],
    [
      'a target outside the workspace',
      { targetPath: '../catalog-info.yaml' },
      /targetPath: .* is outside the workspace/,
    ],
    [
      'a target that is not YAML',
      { targetPath: 'x.sh' },
      /targetPath: .* not a .yaml file/,
    ],
  ])('refuses %s, writing nothing', async (_, bad, message) => {
    await expect(run({ ...input, ...bad })).rejects.toMatchObject({
      name: 'InputError',
      message: expect.stringMatching(/^Invalid input to gpu:catalog:write: /),
    });
    await expect(run({ ...input, ...bad })).rejects.toThrow(message);
    expect(fs.readdirSync(dir.resolve('.'))).toEqual(['workspace']);
    expect(fs.readdirSync(workspace())).toEqual([]);
  });

  it("refuses an owner group the user is not a member of; another backend's own credentials are let through", async () => {
    await expect(
      run({ ...input, owner: 'group:default/search' }),
    ).rejects.toMatchObject({
      name: 'NotAllowedError',
      message:
        'user:default/mock is not a member of group:default/search and cannot register entities owned by it',
    });
    expect(fs.readdirSync(workspace())).toEqual([]);

    const ctx = mockContext(
      { ...input, owner: 'group:default/search' },
      { workspacePath: workspace() },
    );
    ctx.getInitiatorCredentials = async () => mockCredentials.service();
    await action.handler(ctx);
    expect(yaml.parse(written()).spec.owner).toBe('group:default/search');
  });
});
