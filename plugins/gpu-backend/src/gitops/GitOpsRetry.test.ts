import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { ConfigReader } from '@backstage/config';
import {
  demoPlatformConfig,
  readPlatformConfig,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { devSummariser } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import { Knex } from 'knex';
import { DatabaseGpuStore, GpuStore } from '../database';
import { createQuoteService } from '../services/QuoteService';
import { seedQuotas } from '../services/seedQuotas';
import { ServiceManager } from '../services/ServiceManager';
import { toServiceView } from '../services/toServiceView';
import {
  ForgeClient,
  ForgePullRequestState,
  Forges,
  PullRequestRef,
} from './forges';
import { GitOpsFollower } from './GitOpsFollower';

jest.setTimeout(60_000);

const USER = 'user:default/alice';
const CLUSTER = 'gitops-eu';
const HOST = 'git.example.com';
const CONFIRM_WITHIN_MS = 30 * 60_000;
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

  parse(url: string): PullRequestRef {
    return { url, number: Number(url.split('/').pop()) };
  }

  async state(ref: PullRequestRef) {
    return this.states.get(ref.number) ?? 'open';
  }

  async close(ref: PullRequestRef) {
    const state = await this.state(ref);
    if (state !== 'open') return state;
    this.states.set(ref.number, 'closed');
    return 'closed' as const;
  }
}

const pullUrl = (number: number) =>
  `https://${HOST}/ops/gitops/pulls/${number}`;

describe.each(databases.eachSupportedId())(
  'retrying a GitOps service through a new pull request on %p',
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
        'service_changes',
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
      const target = { name: CLUSTER, mode: 'gitops' as const };
      const manager = new ServiceManager({
        platform,
        store,
        quotes: createQuoteService({
          platform,
          store,
          autoscaledReplicas: 'maximum',
        }),
        target,
        clusters: new Map([[CLUSTER, { target }]]),
        logger: mockServices.logger.mock(),
        forges: new Forges([forge]),
        confirmWithinMs: CONFIRM_WITHIN_MS,
        mergeWithinMs: MERGE_WITHIN_MS,
        now: () => now,
      });
      const follower = new GitOpsFollower({
        store,
        services: manager,
        forges: new Forges([forge]),
        logger: mockServices.logger.mock(),
        now: () => now,
      });
      return { store, manager, forge, follower };
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
      return manager.confirm(service.id, USER, pullUrl(number));
    }

    const states = async (store: GpuStore, serviceId: string) =>
      (await store.listReservations(serviceId)).map(r => r.state);

    it('retries a service whose request was closed unmerged: reserved again, awaiting a new request, audited; the new request is followed', async () => {
      const { store, manager, forge, follower } = await setup();
      const service = await proposed(manager, 'closed-then-retried', 1);
      forge.states.set(1, 'closed');
      expect((await follower.follow()).closed).toEqual([service.id]);
      const closed = await manager.get(service.id);
      expect(closed).toMatchObject({
        status: 'deleted',
        reason: 'PullRequestClosed',
      });
      expect(toServiceView(closed).retriableEnd).toBe('closed');
      expect(await states(store, service.id)).toEqual(['released']);

      now = new Date(START.getTime() + 60_000);
      const retried = await manager.retry(service.id, USER);
      expect(retried).toMatchObject({
        status: 'approved',
        reason: 'RenderedForGitOps',
        generation: closed.generation + 1,
        confirmBy: new Date(now.getTime() + CONFIRM_WITHIN_MS).toISOString(),
        pool: closed.pool,
        tier: closed.tier,
        cluster: CLUSTER,
        mode: 'gitops',
      });
      expect(retried.pullRequest).toBeUndefined();
      expect(toServiceView(retried).retriableEnd).toBeUndefined();
      expect(retried.statusReason).toContain(
        `Retried after its pull request ${pullUrl(
          1,
        )} was closed without merging`,
      );
      expect(retried.manifests?.length).toBe(closed.manifests?.length);
      // Newest first: the retry's reservation held, the first one released.
      expect(await states(store, service.id)).toEqual(['held', 'released']);
      const audit = await store.listAuditEvents({ subjectId: service.id });
      const retry = audit.items.find(e => e.action === 'service.retry');
      expect(retry).toMatchObject({
        actor: USER,
        before: { status: 'deleted', reason: 'PullRequestClosed' },
        after: { status: 'approved', retriedAfter: 'closed' },
      });

      // The new request is recorded by the confirmation and followed as at creation.
      const confirmed = await manager.confirm(service.id, USER, pullUrl(2));
      expect(confirmed.confirmBy).toBeUndefined();
      expect(confirmed.pullRequest).toEqual({
        url: pullUrl(2),
        number: 2,
        state: 'open',
        mergeBy: new Date(now.getTime() + MERGE_WITHIN_MS).toISOString(),
      });
      forge.states.set(2, 'merged');
      expect((await follower.follow()).merged).toEqual([service.id]);
      expect(await states(store, service.id)).toEqual(['held', 'released']);
      // Merged and live: nothing to retry any more.
      await expect(manager.retry(service.id, USER)).rejects.toMatchObject({
        name: 'ConflictError',
        message: expect.stringContaining('approved'),
      });
    });

    it('retries an expired request, then one never confirmed; a new close rolls the retry back again', async () => {
      const { store, manager, forge, follower } = await setup();
      const service = await proposed(manager, 'late-then-retried', 3);
      now = new Date(START.getTime() + MERGE_WITHIN_MS);
      expect((await follower.follow()).expired).toEqual([service.id]);
      const expired = await manager.get(service.id);
      expect(expired).toMatchObject({ reason: 'PullRequestExpired' });
      expect(toServiceView(expired).retriableEnd).toBe('expired');

      const retried = await manager.retry(service.id, USER);
      expect(retried.status).toBe('approved');
      expect(retried.statusReason).toContain('was not merged in time');
      // The template run stopped before its confirm step: deleted when confirmBy passes, quota released.
      now = new Date(now.getTime() + CONFIRM_WITHIN_MS);
      expect((await manager.expireUnconfirmed()).map(s => s.id)).toEqual([
        service.id,
      ]);
      expect(await states(store, service.id)).toEqual(['released', 'released']);
      const unconfirmed = await manager.get(service.id);
      expect(unconfirmed.reason).toBe('Deleted');
      expect(toServiceView(unconfirmed).retriableEnd).toBe('unconfirmed');

      const again = await manager.retry(service.id, USER);
      expect(again).toMatchObject({
        status: 'approved',
        generation: retried.generation + 1,
      });
      expect(again.statusReason).toContain('was never confirmed');
      await manager.confirm(service.id, USER, pullUrl(4));
      forge.states.set(4, 'closed');
      expect((await follower.follow()).closed).toEqual([service.id]);
      expect(await manager.get(service.id)).toMatchObject({
        status: 'deleted',
        reason: 'PullRequestClosed',
      });
      expect(await states(store, service.id)).toEqual([
        'released',
        'released',
        'released',
      ]);
    });

    it('refuses a retry over the team quota with the reason, holding and writing nothing', async () => {
      const { store, manager, forge, follower } = await setup();
      const service = await proposed(manager, 'no-room-left', 5);
      forge.states.set(5, 'closed');
      await follower.follow();
      const closed = await manager.get(service.id);
      const quota = (await store.getQuota(service.team))!;
      await store.putQuota({
        team: service.team,
        quota: {
          pools: { ...quota.pools, [service.pool]: 0 },
          monthlyBudgetMicros: quota.monthlyBudgetMicros,
        },
        actor: USER,
      });
      await expect(manager.retry(service.id, USER)).rejects.toMatchObject({
        name: 'ConflictError',
        message: expect.stringMatching(
          new RegExp(
            `^Retrying 'no-room-left' would need the platform team's approval: Team '${service.team}' asks for 1 GPU-equivalents in pool '${service.pool}' but only 0 of 0 are free\\. Nothing is reserved`,
          ),
        ),
      });
      expect(await manager.get(service.id)).toEqual(closed);
      expect(await states(store, service.id)).toEqual(['released']);
      expect(await store.listApprovals({ serviceId: service.id })).toEqual([]);
      const audit = await store.listAuditEvents({ subjectId: service.id });
      expect(audit.items.map(e => e.action)).not.toContain('service.retry');
    });

    it('refuses to retry a service deleted on purpose, or one whose name a live service took', async () => {
      const { manager, forge, follower } = await setup();
      const withdrawn = await proposed(manager, 'withdrawn', 6);
      await manager.teardown(withdrawn.id, USER);
      const decommissioned = await manager.get(withdrawn.id);
      expect(decommissioned.status).toBe('deleted');
      expect(toServiceView(decommissioned).retriableEnd).toBeUndefined();
      await expect(manager.retry(withdrawn.id, USER)).rejects.toMatchObject({
        name: 'ConflictError',
        message: expect.stringContaining(
          'or a GitOps service whose pull request was closed without merging, not merged in time or never confirmed, can be retried',
        ),
      });

      const first = await proposed(manager, 'taken', 7);
      forge.states.set(7, 'closed');
      await follower.follow();
      // Requested anew under the same name meanwhile.
      await proposed(manager, 'taken', 8);
      await expect(manager.retry(first.id, USER)).rejects.toMatchObject({
        name: 'ConflictError',
        message: expect.stringContaining(
          "A live service named 'taken' exists in namespace",
        ),
      });
      expect((await manager.get(first.id)).status).toBe('deleted');
    });

    it('checks the placement as a creation does: a refused check leaves the service as it was', async () => {
      const { store, manager, forge, follower } = await setup();
      const service = await proposed(manager, 'not-allowed', 9);
      forge.states.set(9, 'closed');
      await follower.follow();
      const checked: unknown[] = [];
      await expect(
        manager.retry(service.id, USER, async draft => {
          checked.push(draft);
          throw new Error('not allowed to request services for this team');
        }),
      ).rejects.toThrow('not allowed');
      expect(checked).toEqual([
        expect.objectContaining({ team: service.team, pool: service.pool }),
      ]);
      expect((await manager.get(service.id)).status).toBe('deleted');
      expect(await states(store, service.id)).toEqual(['released']);
    });
  },
);
