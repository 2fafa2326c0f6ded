import {
  catalogGroupOf,
  groupAncestors,
  groupHierarchy,
  rollUpGroupCosts,
} from './groupHierarchy';

const group = (name: string, spec: Record<string, unknown>) =>
  catalogGroupOf({
    apiVersion: 'backstage.io/v1alpha1',
    kind: 'Group',
    metadata: { name },
    spec: { type: 'team', ...spec },
  });

describe('group hierarchy', () => {
  // engineering -> ai (by engineering's children) -> ml-platform (by its own spec.parent); search under engineering.
  const groups = [
    group('engineering', { children: ['ai', 'group:default/search'] }),
    group('ai', { children: [] }),
    group('ML-Platform', { parent: 'ai', children: [] }),
    group('search', { children: [] }),
  ];
  const hierarchy = groupHierarchy(groups);

  it('reads refs canonically from either side of the relation', () => {
    expect(groups[2]).toEqual({
      ref: 'group:default/ml-platform',
      parent: 'group:default/ai',
      children: [],
    });
    expect(groupAncestors(hierarchy, 'group:default/ml-platform')).toEqual([
      'group:default/ai',
      'group:default/engineering',
    ]);
    expect(groupAncestors(hierarchy, 'group:default/engineering')).toEqual([]);
  });

  it('rolls a team cost up to every ancestor, once', () => {
    const rolled = rollUpGroupCosts(
      hierarchy,
      new Map([
        ['group:default/ml-platform', 700],
        ['group:default/search', 200],
        ['group:default/ai', 100],
      ]),
    );
    expect(rolled).toEqual([
      { ref: 'group:default/engineering', ownMicros: 0, totalMicros: 1000 },
      {
        ref: 'group:default/ai',
        parent: 'group:default/engineering',
        ownMicros: 100,
        totalMicros: 800,
      },
      {
        ref: 'group:default/ml-platform',
        parent: 'group:default/ai',
        ownMicros: 700,
        totalMicros: 700,
      },
      {
        ref: 'group:default/search',
        parent: 'group:default/engineering',
        ownMicros: 200,
        totalMicros: 200,
      },
    ]);
  });

  it('stops at a cycle in the catalog data', () => {
    const cyclic = groupHierarchy([
      group('a', { parent: 'b', children: [] }),
      group('b', { parent: 'a', children: [] }),
    ]);
    expect(groupAncestors(cyclic, 'group:default/a')).toEqual([
      'group:default/b',
    ]);
    expect(
      rollUpGroupCosts(cyclic, new Map([['group:default/a', 5]])).map(
        g => g.totalMicros,
      ),
    ).toEqual([5, 5]);
  });

  it('leaves out a child that is not a group ref', () => {
    expect(group('x', { children: ['user:default/bob', 7] }).children).toEqual(
      [],
    );
  });
});
