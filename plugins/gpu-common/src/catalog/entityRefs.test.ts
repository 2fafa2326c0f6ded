import { GpuDomainError } from '../errors';
import {
  MAX_ENTITY_REF_LENGTH,
  ownerGroupOf,
  parseGroupEntityRef,
  parseServiceEntityRef,
  teamGroupRef,
} from './entityRefs';

describe('parseServiceEntityRef', () => {
  it.each([
    ['summariser', 'component:default/summariser'],
    ['default/summariser', 'component:default/summariser'],
    ['component:default/summariser', 'component:default/summariser'],
    ['Component:ml/Summariser', 'component:ml/summariser'],
    ['component:summariser.v2_x', 'component:default/summariser.v2_x'],
  ])('%s is %s', (value, ref) => {
    expect(parseServiceEntityRef(value)).toEqual({
      kind: 'component',
      namespace: ref.split(':')[1].split('/')[0],
      name: ref.split('/')[1],
      ref,
    });
  });

  it.each([
    ['an empty string', '', /is not an entity ref/],
    ['a number', 42, /is not an entity ref/],
    ['undefined', undefined, /is not an entity ref/],
    ['another kind', 'group:default/ml-platform', /only a component/],
    ['a Template', 'template:default/gpu-model-service', /only a component/],
    ['a missing name', 'component:default/', /not on the form/],
    [
      'a kind with a newline',
      'summariser\nspec: {}',
      /of kind "summariser\\nspec"/,
    ],
    ['a name with a newline', 'component:default/a\nspec: {}', /invalid name/],
    ['a name with a slash', 'component:default/a/b', /invalid name/],
    ['a name with a space', 'component:default/a b', /invalid name/],
    ['a name longer than 63', `component:default/${'a'.repeat(64)}`, /name/],
    ['an upper-case namespace', 'component:Default/summariser', /namespace/],
    ['a namespace with a dot', 'component:a.b/summariser', /namespace/],
    [
      'a ref longer than the bound',
      `component:default/${'a'.repeat(MAX_ENTITY_REF_LENGTH)}`,
      /longer than 253 characters/,
    ],
  ])('refuses %s', (_, value, why) => {
    let error: unknown;
    try {
      parseServiceEntityRef(value);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GpuDomainError);
    expect(error).toMatchObject({
      name: 'InputError',
      code: 'INVALID_ENTITY_REF',
      message: expect.stringMatching(/^entityRef: /),
    });
    expect((error as Error).message).toMatch(why);
  });

  it('names the field it was given and quotes the value on one line', () => {
    expect(() =>
      parseServiceEntityRef('bad\nname', { field: 'request.entityRef' }),
    ).toThrow(/^request\.entityRef: "bad\\nname" has an invalid name/);
  });
});

describe('parseGroupEntityRef, teamGroupRef and ownerGroupOf', () => {
  it('parses group refs and refuses other kinds and injected text', () => {
    expect(parseGroupEntityRef('group:default/ml-platform').ref).toBe(
      'group:default/ml-platform',
    );
    expect(parseGroupEntityRef('ml-platform').ref).toBe(
      'group:default/ml-platform',
    );
    expect(() => parseGroupEntityRef('user:default/guest')).toThrow(
      /^owner: .* only a group/,
    );
    expect(() =>
      parseGroupEntityRef('group:default/ml-platform\nsystem: evil'),
    ).toThrow(/^owner: .* invalid name/);
  });

  it('resolves spec.owner like the catalog (kind group, the entity namespace)', () => {
    expect(teamGroupRef('ml-platform')).toBe('group:default/ml-platform');
    expect(ownerGroupOf({ metadata: {}, spec: { owner: 'ml-platform' } })).toBe(
      'group:default/ml-platform',
    );
    expect(
      ownerGroupOf({
        metadata: { namespace: 'ml' },
        spec: { owner: 'search' },
      }),
    ).toBe('group:ml/search');
    expect(
      ownerGroupOf({
        metadata: {},
        spec: { owner: 'Group:default/ML-Platform' },
      }),
    ).toBe('group:default/ml-platform');
    expect(
      ownerGroupOf({ metadata: {}, spec: { owner: 'user:default/guest' } }),
    ).toBeUndefined();
    expect(ownerGroupOf({ metadata: {}, spec: {} })).toBeUndefined();
    expect(ownerGroupOf({ metadata: {} })).toBeUndefined();
  });
});
