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
import {
  CONFIRMATION_EXPIRY_ACTOR,
  DEFAULT_CONFIRM_WITHIN_MS,
  ServiceManager,
} from '../services/ServiceManager';
import {
  ForgeClient,
  ForgePullRequestState,
  Forges,
  PullRequestRef,
} from './forges';
import { GITOPS_FOLLOW_ACTOR, GitOpsFollower } from './GitOpsFollower';

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

const pullUrl = (n: number) => `https://${HOST}/ops/gitops/pulls/${n}`;

describe.each(databases.eachSupportedId())(
  'a GitOps change is pending until its pull request is merged, on %p',
  id => {
    let knex: Knex;
    let now: Date;

    beforeAll(async () => {
      knex = await databases.init(id);
    });

    async function setup(mode: 'gitops' | 'dry-run' = 'gitops') {
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
        'service_changes',
        'services',
        'pool_quotas',
        'team_quotas',
      ]) {
        await knex(table).delete();
      }
      await seedQuotas({ platform, store, logger: mockServices.logger.mock() });
      const forge = new ForgeOfTheTest();
      const target = { name: CLUSTER, mode };
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
        mergeWithinMs: MERGE_WITHIN_MS,
        now: () => now,
      });
      const expiredNotices: string[] = [];
      const follower = new GitOpsFollower({
        store,
        services: manager,
        forges: new Forges([forge]),
        notifier: {
          async pullRequestExpired(service) {
            expiredNotices.push(`created ${service.id}`);
          },
          async changePullRequestExpired(service, url) {
            expiredNotices.push(`changed ${service.id} ${url}`);
          },
        },
        logger: mockServices.logger.mock(),
        now: () => now,
      });
      return { store, manager, forge, follower, expiredNotices };
    }

    /** A GitOps service created by its template and merged: 1 dedicated L4 in dev, request 1. */
    async function merged(
      setupResult: Awaited<ReturnType<typeof setup>>,
      name: string,
      replicas = 1,
      environment = 'dev',
    ): Promise<ServiceRecord> {
      const { manager, forge, follower } = setupResult;
      const { service } = await manager.create(
        {
          request: { ...devSummariser, name, replicas, environment },
          mode: 'gitops',
          provisional: true,
        },
        USER,
      );
      await manager.confirm(service.id, USER, pullUrl(1));
      forge.states.set(1, 'merged');
      await follower.follow();
      return manager.get(service.id);
    }

    /** What the service holds, as quota counts it: the held reservation's pool and amounts, and the team's total. */
    async function quotaFigures(store: GpuStore, service: ServiceRecord) {
      const held = (await store.listReservations(service.id)).filter(
        r => r.state === 'held',
      );
      const ledger = await store.getLedgerSnapshot(service.team, 0);
      return {
        held: held.map(r => ({
          pool: r.pool,
          gpuEquivalents: r.gpuEquivalents,
          monthlyCostMicros: r.monthlyCostMicros,
        })),
        teamReserved: ledger?.reservedGpuUnits,
      };
    }

    /** What a change restores must equal: the spec and its manifests. */
    const specOf = (s: ServiceRecord) => ({
      tier: s.tier,
      pool: s.pool,
      cluster: s.cluster,
      request: s.request,
      placement: s.placement,
      manifests: s.manifests,
    });

    /** The change template's backend calls: a provisional PATCH, then the confirm step with its pull request. */
    async function proposeChange(
      manager: ServiceManager,
      serviceId: string,
      replicas: number,
      number: number,
    ) {
      const { service } = await manager.update(
        serviceId,
        { replicas, provisional: true },
        USER,
      );
      await manager.confirm(serviceId, USER, pullUrl(number));
      return service;
    }

    it('restores the old spec and exactly the old reservation when the change request is closed unmerged', async () => {
      const ctx = await setup();
      const { store, manager, forge, follower } = ctx;
      const before = await merged(ctx, 'closed-change');
      const figuresBefore = await quotaFigures(store, before);
      expect(figuresBefore.held).toHaveLength(1);

      const changed = await proposeChange(manager, before.id, 2, 2);
      expect(changed.request.replicas).toBe(2);
      expect(changed.generation).toBe(before.generation + 1);
      // The change is in effect while pending: the new reservation is held, the old one released.
      const figuresChanged = await quotaFigures(store, changed);
      expect(figuresChanged.held[0].gpuEquivalents).toBe(
        2 * figuresBefore.held[0].gpuEquivalents,
      );
      expect(await store.getPendingChange(before.id)).toMatchObject({
        state: 'pending',
        generation: changed.generation,
        pullRequest: {
          url: pullUrl(2),
          number: 2,
          mergeBy: new Date(START.getTime() + MERGE_WITHIN_MS).toISOString(),
        },
      });

      // Still open: nothing changes.
      expect(await follower.follow()).toMatchObject({ closed: [], merged: [] });
      forge.states.set(2, 'closed');
      expect((await follower.follow()).closed).toEqual([before.id]);

      const restored = await manager.get(before.id);
      expect(specOf(restored)).toEqual(specOf(before));
      expect(restored).toMatchObject({
        status: 'approved',
        reason: 'ChangePullRequestClosed',
        statusReason: expect.stringContaining(
          `The pull request ${pullUrl(2)} of its change`,
        ),
        generation: changed.generation + 1,
      });
      expect(await quotaFigures(store, restored)).toEqual(figuresBefore);
      expect(await store.getPendingChange(before.id)).toBeUndefined();
      const audit = await store.listAuditEvents({ subjectId: before.id });
      expect(
        audit.items.find(e => e.action === 'service.change-request'),
      ).toMatchObject({
        actor: GITOPS_FOLLOW_ACTOR,
        after: { state: 'closed' },
      });

      // Settled once: a later round finds nothing, and the service can be changed again.
      expect(await follower.follow()).toMatchObject({ closed: [], merged: [] });
      const again = await manager.update(before.id, { replicas: 2 }, USER);
      expect(again.service.request.replicas).toBe(2);
    });

    it('says so when the restored reservation is over the quota the change freed and another service took meanwhile', async () => {
      const ctx = await setup();
      const { store, manager, forge, follower } = ctx;
      // With another service of 2, the team's whole quota of dedicated L4s in dev (4).
      const before = await merged(ctx, 'wide-change', 2);
      const figuresBefore = await quotaFigures(store, before);
      await manager.create(
        {
          request: { ...devSummariser, name: 'filler', replicas: 2 },
          mode: 'gitops',
        },
        USER,
      );
      const changed = await proposeChange(manager, before.id, 1, 2);
      // The GPU the pending change freed is taken by another service, within the quota.
      const { service: taker } = await manager.create(
        { request: { ...devSummariser, name: 'taker' }, mode: 'gitops' },
        USER,
      );
      expect(taker.status).toBe('approved');
      expect((await quotaFigures(store, changed)).held).toHaveLength(1);

      forge.states.set(2, 'closed');
      expect((await follower.follow()).closed).toEqual([before.id]);
      const restored = await manager.get(before.id);
      // Restored all the same (the cluster runs it), and said: in its status and on its trail.
      expect(specOf(restored)).toEqual(specOf(before));
      expect(restored.statusReason).toContain(
        'Restored over quota: team ml-platform now holds 5 GPU-equivalents on pool l4-ondemand, over its quota of 4 (the quota the change freed was taken while it was pending)',
      );
      const figures = await quotaFigures(store, restored);
      expect(figures.held).toEqual(figuresBefore.held);
      const audit = await store.listAuditEvents({ subjectId: before.id });
      expect(
        audit.items.find(
          e =>
            e.action === 'service.change-request' &&
            (e.after as { state?: string }).state === 'closed',
        ),
      ).toMatchObject({
        after: {
          oversubscribed: {
            pool: 'l4-ondemand',
            heldGpuEquivalents: 5,
            quotaGpuEquivalents: 4,
          },
        },
      });
    });

    it('keeps the new spec and reservation once the change request is merged', async () => {
      const ctx = await setup();
      const { store, manager, forge, follower } = ctx;
      const before = await merged(ctx, 'merged-change');
      const changed = await proposeChange(manager, before.id, 2, 2);
      const figuresChanged = await quotaFigures(store, changed);

      forge.states.set(2, 'merged');
      expect((await follower.follow()).merged).toEqual([before.id]);
      const kept = await manager.get(before.id);
      expect(specOf(kept)).toEqual(specOf(changed));
      expect(kept.reason).toBe('RenderedForGitOps');
      expect(await quotaFigures(store, kept)).toEqual(figuresChanged);
      expect(await store.getPendingChange(before.id)).toBeUndefined();
      // Closing it afterwards changes nothing: it is no longer followed.
      forge.states.set(2, 'closed');
      expect(await follower.follow()).toMatchObject({ closed: [], merged: [] });
      expect((await manager.get(before.id)).request.replicas).toBe(2);
    });

    it('refuses a second change while one is pending with a 409 naming its request', async () => {
      const ctx = await setup();
      const { manager, forge, follower } = ctx;
      const before = await merged(ctx, 'second-change');
      // Before its request is recorded...
      await manager.update(before.id, { replicas: 2, provisional: true }, USER);
      await expect(
        manager.update(before.id, { replicas: 3 }, USER),
      ).rejects.toMatchObject({
        name: 'ConflictError',
        message: expect.stringMatching(
          /^Service 'second-change' has a change \(generation 2\) waiting for the template run that made it to record its pull request/,
        ),
      });
      // ...and after.
      await manager.confirm(before.id, USER, pullUrl(2));
      for (const change of [
        { replicas: 3 },
        { replicas: 3, provisional: true },
        { replicas: 3, dryRun: true },
      ]) {
        await expect(
          manager.update(before.id, change, USER),
        ).rejects.toMatchObject({
          name: 'ConflictError',
          message: `Service 'second-change' has a change (generation 2) waiting for its pull request ${pullUrl(
            2,
          )} to be merged; merge or close that request first`,
        });
      }
      // Another request for the same change is refused; the same one again changes nothing.
      await expect(
        manager.confirm(before.id, USER, pullUrl(3)),
      ).rejects.toMatchObject({ name: 'ConflictError' });
      await manager.confirm(before.id, USER, pullUrl(2));
      forge.states.set(2, 'merged');
      await follower.follow();
      expect(
        (await manager.update(before.id, { replicas: 1 }, USER)).service.request
          .replicas,
      ).toBe(1);
    });

    it('rolls the change back when its request is not merged in time, closing it and telling the platform team', async () => {
      const ctx = await setup();
      const { store, manager, forge, follower, expiredNotices } = ctx;
      const before = await merged(ctx, 'late-change');
      const figuresBefore = await quotaFigures(store, before);
      await proposeChange(manager, before.id, 2, 2);

      now = new Date(START.getTime() + MERGE_WITHIN_MS);
      expect((await follower.follow()).expired).toEqual([before.id]);
      expect(forge.states.get(2)).toBe('closed');
      expect(forge.comments.get(2)?.[0]).toMatch(
        /^Not merged by .*rolled back/,
      );
      const restored = await manager.get(before.id);
      expect(specOf(restored)).toEqual(specOf(before));
      expect(restored.reason).toBe('ChangePullRequestExpired');
      expect(await quotaFigures(store, restored)).toEqual(figuresBefore);
      expect(expiredNotices).toEqual([`changed ${before.id} ${pullUrl(2)}`]);
    });

    it('rolls back a change whose template run never confirmed it', async () => {
      const ctx = await setup();
      const { store, manager } = ctx;
      const before = await merged(ctx, 'unconfirmed-change');
      const figuresBefore = await quotaFigures(store, before);
      await manager.update(before.id, { replicas: 2, provisional: true }, USER);

      now = new Date(START.getTime() + DEFAULT_CONFIRM_WITHIN_MS - 1);
      expect(await manager.expireUnconfirmed()).toEqual([]);
      now = new Date(START.getTime() + DEFAULT_CONFIRM_WITHIN_MS);
      const [restored] = await manager.expireUnconfirmed();
      expect(restored).toMatchObject({
        id: before.id,
        status: 'approved',
        reason: 'ChangeNotConfirmed',
      });
      expect(specOf(restored)).toEqual(specOf(before));
      expect(await quotaFigures(store, restored)).toEqual(figuresBefore);
      const audit = await store.listAuditEvents({ subjectId: before.id });
      expect(
        audit.items.find(e => e.action === 'service.change-request'),
      ).toMatchObject({
        actor: CONFIRMATION_EXPIRY_ACTOR,
        after: { state: 'unconfirmed' },
      });
    });

    it('withdraws a pending change when its service is deleted, closing its request', async () => {
      const ctx = await setup();
      const { manager, forge, follower } = ctx;
      const before = await merged(ctx, 'deleted-change');
      await proposeChange(manager, before.id, 2, 2);
      await manager.teardown(before.id, USER);
      expect((await follower.follow()).withdrawn).toEqual([before.id]);
      expect(forge.states.get(2)).toBe('closed');
      const deleted = await manager.get(before.id);
      expect(deleted.status).toBe('deleted');
      expect(deleted.request.replicas).toBe(2);
    });

    it('refuses provisional for a service not in GitOps mode', async () => {
      const { manager } = await setup('dry-run');
      const { service } = await manager.create(
        { request: { ...devSummariser, name: 'dry' } },
        USER,
      );
      await expect(
        manager.update(service.id, { replicas: 2, provisional: true }, USER),
      ).rejects.toMatchObject({
        name: 'InputError',
        message: expect.stringContaining('only a change of a GitOps service'),
      });
    });

    it('answers a dry-run change as admission would decide it without the service’s own reservation, writing nothing', async () => {
      const ctx = await setup();
      const { store, manager } = ctx;
      // ml-platform has 4 L4s of quota (production allows 4 dedicated GPUs): 3 held, 4 asked. Counting its own 3,
      // the team would be at 7.
      const before = await merged(ctx, 'quoted-change', 3, 'production');
      const figuresBefore = await quotaFigures(store, before);
      const audit = (await store.listAuditEvents({ subjectId: before.id }))
        .items.length;

      const fits = await manager.update(
        before.id,
        { replicas: 4, dryRun: true },
        USER,
      );
      expect(fits.service).toMatchObject({
        id: before.id,
        status: 'approved',
        reason: 'DryRun',
        request: { replicas: 4 },
      });
      expect(fits.approval).toBeUndefined();
      expect(fits.reservation).toMatchObject({
        id: 'dry-run',
        state: 'held',
        gpuEquivalents: (figuresBefore.held[0].gpuEquivalents * 4) / 3,
      });
      expect(fits.service.manifests).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            kind: 'Deployment',
            spec: expect.objectContaining({ replicas: 4 }),
          }),
        ]),
      );

      // Another service of the team takes the last L4 of its quota: 4 more, without its own 3, is over quota.
      await manager.create(
        {
          request: {
            ...devSummariser,
            name: 'other',
            environment: 'production',
          },
          mode: 'gitops',
        },
        USER,
      );
      const figuresFull = await quotaFigures(store, before);
      const over = await manager.update(
        before.id,
        { replicas: 4, dryRun: true },
        USER,
      );
      expect(over.service).toMatchObject({
        status: 'pending-approval',
        reason: 'AwaitingApproval',
        statusReason: expect.stringMatching(/^Would wait for approval: /),
        request: { replicas: 4 },
      });
      expect(over.approval).toMatchObject({ id: 'dry-run', state: 'pending' });
      expect(over.approval?.reasons.map(r => r.code)).toContain('over-quota');

      // Nothing was written: the service, its reservations, approvals and audit trail are as they were.
      const after = await manager.get(before.id);
      expect(after).toEqual(before);
      expect(figuresFull.held).toEqual(figuresBefore.held);
      expect(await quotaFigures(store, after)).toEqual(figuresFull);
      expect(
        await store.listApprovals({ serviceId: before.id, state: 'pending' }),
      ).toEqual([]);
      expect(
        (await store.listAuditEvents({ subjectId: before.id })).items,
      ).toHaveLength(audit);
      expect(await store.getPendingChange(before.id)).toBeUndefined();
    });
  },
);
