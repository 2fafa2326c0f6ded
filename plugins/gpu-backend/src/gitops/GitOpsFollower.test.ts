import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { ConfigReader } from '@backstage/config';
import {
  demoPlatformConfig,
  readPlatformConfig,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { devSummariser } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import { Knex } from 'knex';
import { DatabaseGpuStore, GpuStore, ServiceRecord } from '../database';
import { createQuoteService } from '../services/QuoteService';
import { seedQuotas } from '../services/seedQuotas';
import { ServiceManager } from '../services/ServiceManager';
import {
  ForgeClient,
  ForgePullRequestState,
  Forges,
  PullRequestRef,
} from './forges';
import { GITOPS_FOLLOW_ACTOR, GitOpsFollower } from './GitOpsFollower';
import { OwnedObjectsReader } from './OwnedObjectsReader';

jest.setTimeout(60_000);

const USER = 'user:default/alice';
const CLUSTER = 'gitops-eu';
const HOST = 'git.example.com';
const MERGE_WITHIN_MS = 2 * 60 * 60_000;
const START = new Date('2026-12-02T08:00:00.000Z');

const databases = TestDatabases.create({ ids: ['POSTGRES_15', 'SQLITE_3'] });
const platform = readPlatformConfig(
  new ConfigReader({ gpu: demoPlatformConfig }),
);

/** The forge as the follower sees it: requests by number, whose state the test sets as a reviewer would. */
class ForgeOfTheTest implements ForgeClient {
  readonly host = HOST;
  readonly states = new Map<number, ForgePullRequestState>();
  readonly comments = new Map<number, string[]>();

  parse(url: string): PullRequestRef {
    return { url, number: Number(url.split('/').pop()) };
  }

  async state(ref: PullRequestRef) {
    return this.states.get(ref.number) ?? 'open';
  }

  async close(ref: PullRequestRef, comment: string) {
    const state = await this.state(ref);
    if (state !== 'open') return state;
    this.comments.set(ref.number, [
      ...(this.comments.get(ref.number) ?? []),
      comment,
    ]);
    this.states.set(ref.number, 'closed');
    return 'closed' as const;
  }
}

describe.each(databases.eachSupportedId())(
  'GitOps reservations follow their pull requests and cluster on %p',
  id => {
    let knex: Knex;
    let now: Date;

    beforeAll(async () => {
      knex = await databases.init(id);
    });

    async function setup() {
      now = START;
      const store = await DatabaseGpuStore.create({
        database: mockServices.database({ knex }),
        platform,
        clock: () => now,
      });
      for (const table of [
        'audit_events',
        'approvals',
        'reservations',
        'cost_snapshots',
        'services',
        'pool_quotas',
        'team_quotas',
      ]) {
        await knex(table).delete();
      }
      await seedQuotas({ platform, store, logger: mockServices.logger.mock() });
      const forge = new ForgeOfTheTest();
      // What the GitOps controller left in the cluster, by service id (the reader lists, never writes).
      const live = new Map<string, string[]>();
      const listed: string[] = [];
      const reader = new OwnedObjectsReader(CLUSTER, {
        async list(options) {
          listed.push(`${options.kind} ${options.labelSelector}`);
          const serviceId = /service-id=([^,]+)/.exec(
            options.labelSelector ?? '',
          )?.[1];
          return {
            items: (live.get(serviceId ?? '') ?? [])
              .filter(k => k === options.kind)
              .map(() => ({ metadata: { name: 'x' } })),
          };
        },
      });
      const target = { name: CLUSTER, mode: 'gitops' as const };
      // Autoscaled services are not followed here: the default reservation basis is enough.
      const quoteOptions = {
        platform,
        store,
        autoscaledReplicas: 'maximum' as const,
      };
      const quotes = createQuoteService(quoteOptions);
      const manager = new ServiceManager({
        platform,
        store,
        quotes,
        target,
        clusters: new Map([[CLUSTER, { target }]]),
        logger: mockServices.logger.mock(),
        forges: new Forges([forge]),
        mergeWithinMs: MERGE_WITHIN_MS,
        gitopsReaders: new Map([[CLUSTER, reader]]),
        now: () => now,
      });
      const expiredNotices: ServiceRecord[] = [];
      const follower = new GitOpsFollower({
        store,
        services: manager,
        forges: new Forges([forge]),
        notifier: {
          async pullRequestExpired(service) {
            expiredNotices.push(service);
          },
        },
        logger: mockServices.logger.mock(),
        now: () => now,
      });
      return {
        store,
        quotes,
        manager,
        forge,
        live,
        listed,
        follower,
        expiredNotices,
      };
    }

    /** A GitOps service as the template leaves it: created provisionally, confirmed with its pull request. */
    async function proposed(
      manager: ServiceManager,
      name: string,
      number: number,
    ) {
      const { service } = await manager.create(
        {
          request: { ...devSummariser, name },
          mode: 'gitops',
          provisional: true,
        },
        USER,
      );
      return manager.confirm(
        service.id,
        USER,
        `https://${HOST}/ops/gitops/pulls/${number}`,
      );
    }

    const held = async (store: GpuStore, serviceId: string) =>
      (await store.listReservations(serviceId)).map(r => r.state);

    it('records the pull request with its deadline; keeps the reservation once it is merged', async () => {
      const { store, manager, forge, follower } = await setup();
      const service = await proposed(manager, 'merged-one', 1);
      expect(service.confirmBy).toBeUndefined();
      expect(service.pullRequest).toEqual({
        url: `https://${HOST}/ops/gitops/pulls/1`,
        number: 1,
        state: 'open',
        mergeBy: new Date(START.getTime() + MERGE_WITHIN_MS).toISOString(),
      });

      // Open: nothing changes.
      expect(await follower.follow()).toMatchObject({ merged: [], closed: [] });
      forge.states.set(1, 'merged');
      expect((await follower.follow()).merged).toEqual([service.id]);
      const merged = await manager.get(service.id);
      expect(merged.pullRequest).toMatchObject({ state: 'merged' });
      expect(merged.pullRequest?.mergeBy).toBeUndefined();
      expect(merged.status).toBe('approved');
      expect(await held(store, service.id)).toEqual(['held']);
      // Past the deadline a merged request expires nothing.
      now = new Date(START.getTime() + MERGE_WITHIN_MS + 1);
      expect(await follower.follow()).toMatchObject({
        expired: [],
        merged: [],
      });
      const audit = await store.listAuditEvents({ subjectId: service.id });
      expect(
        audit.items.find(e => e.action === 'service.pull-request'),
      ).toMatchObject({
        actor: GITOPS_FOLLOW_ACTOR,
        after: { pullRequest: { state: 'merged' } },
      });
    });

    it('rolls the reservation back when the request is closed without merging', async () => {
      const { store, manager, forge, follower } = await setup();
      const service = await proposed(manager, 'closed-one', 2);
      forge.states.set(2, 'closed');
      expect((await follower.follow()).closed).toEqual([service.id]);
      expect(await manager.get(service.id)).toMatchObject({
        status: 'deleted',
        reason: 'PullRequestClosed',
        pullRequest: { state: 'closed' },
      });
      expect(await held(store, service.id)).toEqual(['released']);
      // Settled once: a second round finds nothing.
      expect((await follower.follow()).closed).toEqual([]);
    });

    it('expires a request not merged in time: closes it with a comment, releases the quota, tells the platform team', async () => {
      const { store, manager, forge, follower, expiredNotices } = await setup();
      const service = await proposed(manager, 'late-one', 3);
      now = new Date(START.getTime() + MERGE_WITHIN_MS - 1);
      expect((await follower.follow()).expired).toEqual([]);
      expect(await held(store, service.id)).toEqual(['held']);

      now = new Date(START.getTime() + MERGE_WITHIN_MS);
      expect((await follower.follow()).expired).toEqual([service.id]);
      expect(forge.states.get(3)).toBe('closed');
      expect(forge.comments.get(3)?.[0]).toMatch(/^Not merged by /);
      expect(await manager.get(service.id)).toMatchObject({
        status: 'deleted',
        reason: 'PullRequestExpired',
        pullRequest: { state: 'expired' },
      });
      expect(await held(store, service.id)).toEqual(['released']);
      expect(expiredNotices.map(s => s.id)).toEqual([service.id]);
    });

    it('a request merged just before its expiry is kept', async () => {
      const { store, manager, forge, follower } = await setup();
      const service = await proposed(manager, 'just-in-time', 4);
      now = new Date(START.getTime() + MERGE_WITHIN_MS);
      // Merged between the read and the close: the close answers merged.
      const close = forge.close.bind(forge);
      forge.close = async (ref, comment) => {
        forge.states.set(ref.number, 'merged');
        return close(ref, comment);
      };
      expect(await follower.follow()).toMatchObject({
        expired: [],
        merged: [service.id],
      });
      expect(await held(store, service.id)).toEqual(['held']);
    });

    it('closes the open request of a service deleted in Backstage', async () => {
      const { manager, forge, follower } = await setup();
      const service = await proposed(manager, 'withdrawn', 5);
      // Never merged: nothing can be in the cluster, so the delete does not wait for a prune.
      expect(await manager.teardown(service.id, USER)).toMatchObject({
        status: 'deleted',
      });
      expect((await follower.follow()).withdrawn).toEqual([service.id]);
      expect(forge.states.get(5)).toBe('closed');
      expect((await manager.get(service.id)).pullRequest?.state).toBe('closed');
    });

    it('holds the quota of a decommission until the cluster shows its objects gone, reading only', async () => {
      const { store, manager, forge, follower, live, listed } = await setup();
      const service = await proposed(manager, 'pruned', 6);
      forge.states.set(6, 'merged');
      await follower.follow();
      live.set(service.id, ['Deployment', 'Service']);

      const deleting = await manager.teardown(service.id, USER);
      expect(deleting).toMatchObject({
        status: 'deleting',
        reason: 'AwaitingPrune',
      });
      // Asking again does not release it.
      expect(await manager.teardown(service.id, USER)).toMatchObject({
        status: 'deleting',
        reason: 'AwaitingPrune',
      });
      expect((await follower.follow()).pruned).toEqual([]);
      expect(await held(store, service.id)).toEqual(['held']);
      expect(listed).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^Deployment .*service-id=/),
        ]),
      );

      live.set(service.id, []);
      expect((await follower.follow()).pruned).toEqual([service.id]);
      expect(await manager.get(service.id)).toMatchObject({
        status: 'deleted',
        reason: 'Deleted',
      });
      expect(await held(store, service.id)).toEqual(['released']);
    });

    it('refuses a pull request for a service that is not in GitOps mode, or on a forge not configured', async () => {
      const { store, quotes, manager } = await setup();
      const { service } = await manager.create(
        { request: { ...devSummariser, name: 'applied' }, provisional: true },
        USER,
      );
      // The cluster is a GitOps one: a service recorded there without asking is GitOps too. A dry-run one is not.
      const dryRun = new ServiceManager({
        platform,
        store,
        quotes,
        target: { mode: 'dry-run' },
        logger: mockServices.logger.mock(),
        forges: new Forges([new ForgeOfTheTest()]),
      });
      const { service: plain } = await dryRun.create(
        { request: { ...devSummariser, name: 'plain' }, provisional: true },
        USER,
      );
      await expect(
        dryRun.confirm(plain.id, USER, `https://${HOST}/ops/gitops/pulls/9`),
      ).rejects.toMatchObject({ name: 'InputError' });
      expect((await dryRun.get(plain.id)).confirmBy).toBeDefined();
      await expect(
        manager.confirm(service.id, USER, 'https://elsewhere.org/a/b/pulls/1'),
      ).rejects.toMatchObject({ name: 'InputError' });
      expect((await manager.get(service.id)).confirmBy).toBeDefined();
    });
  },
);
