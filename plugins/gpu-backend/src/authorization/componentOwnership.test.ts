import { mockCredentials } from '@backstage/backend-test-utils';
import { assertComponentOfTeam } from './componentOwnership';

describe('assertComponentOfTeam', () => {
  const credentials = mockCredentials.user('user:default/bob');
  const component = (owner?: string) => ({
    metadata: { namespace: 'default' },
    spec: owner ? { owner } : {},
  });

  it("accepts the team's own component, by short or full owner ref, and one the catalog does not have", async () => {
    for (const entity of [
      component('ml-platform'),
      component('group:default/ml-platform'),
      undefined,
    ]) {
      await expect(
        assertComponentOfTeam({
          components: async () => entity,
          entityRef: 'component:default/ml-chat',
          team: 'ml-platform',
          credentials,
        }),
      ).resolves.toBeUndefined();
    }
  });

  it("refuses another team's component, a user's and an unowned one, naming the owner", async () => {
    for (const [entity, owner] of [
      [component('search'), 'group:default/search'],
      [component('user:default/bob'), 'no group'],
      [component(), 'no group'],
    ] as const) {
      await expect(
        assertComponentOfTeam({
          components: async () => entity,
          entityRef: 'component:default/ranker',
          team: 'ml-platform',
          credentials,
        }),
      ).rejects.toMatchObject({
        name: 'NotAllowedError',
        message: `component:default/ranker is owned by ${owner}, not group:default/ml-platform: a GPU service of team ml-platform can only be bound to one of its own components`,
      });
    }
  });

  it('answers 503 when the catalog cannot be read, binding nothing unchecked', async () => {
    await expect(
      assertComponentOfTeam({
        components: async () => {
          throw new Error('connect ECONNREFUSED 10.0.0.7:7007');
        },
        entityRef: 'component:default/ml-chat',
        team: 'ml-platform',
        credentials,
      }),
    ).rejects.toMatchObject({
      name: 'ServiceUnavailableError',
      message: expect.not.stringContaining('10.0.0.7'),
    });
  });
});
