/*
 * Batch jobs in the quota ledger: a submission in apply or GitOps mode reserves its GPUs atomically with the quota
 * check, a failed apply gives them back, and a Job that finished or is gone releases them; a GitOps one is read back
 * by the read-only reader of its cluster, released as of its finish time, and kept while its Job is not there yet
 * within the GitOps window; on SQLite and PostgreSQL.
 */
import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { resolvePackagePath } from '@backstage/backend-plugin-api';
import { ConflictError } from '@backstage/errors';
import type { KubernetesObject } from '@kubernetes/client-node';
import {
  demoPlatformConfig,
  parsePlatform,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { BatchJobRequest } from '@gpu-platform/backstage-plugin-gpu-node';
import { Knex } from 'knex';
import {
  ClusterApplier,
  KubernetesObjectClient,
  KubernetesRequestError,
} from '../cluster';
import { DatabaseGpuStore } from '../database';
import {
  BATCH_RELEASE_ACTOR,
  BatchJobs,
  DEFAULT_GITOPS_GRACE_MS,
  gitopsBatchGraceMs,
} from './BatchJobs';
import { BatchJobSubmission } from './types';

jest.setTimeout(120_000);

const databases = TestDatabases.create({ ids: ['POSTGRES_15', 'SQLITE_3'] });

if (
  process.env.GPU_REQUIRE_POSTGRES === '1' &&
  !databases.supports('POSTGRES_15')
) {
  throw new Error(
    'GPU_REQUIRE_POSTGRES=1 but PostgreSQL is unavailable: set BACKSTAGE_TEST_DATABASE_POSTGRES15_CONNECTION_STRING',
  );
}

const platform = parsePlatform(demoPlatformConfig);
const TEAM = 'search';
const ACTOR = 'user:default/carol';
/** A month (730 h) of one spot L4 at $0.37 a node-hour of one GPU. */
const GPU_MONTH_MICROS = 270_100_000;

function request(
  name: string,
  overrides: Partial<BatchJobRequest> = {},
): BatchJobRequest {
  return {
    name,
    team: TEAM,
    environment: 'dev',
    pool: 'spot-l4',
    image: 'registry.example.com/ocr-worker:1.4.2',
    completions: 24,
    parallelism: 4,
    gpusPerPod: 1,
    backoffLimit: 2,
    ...overrides,
  };
}

/** A cluster whose Jobs are those in `jobs` (by name), whose applies fail while `failApply` is set. */
function fakeCluster() {
  const jobs = new Map<string, KubernetesObject>();
  const state = { failApply: false };
  const applied: KubernetesObject[][] = [];
  const applier = {
    cluster: 'local',
    async apply(objects: KubernetesObject[]) {
      if (state.failApply) throw new Error('the API server is unreachable');
      applied.push(objects);
      for (const o of objects) {
        if (o.kind === 'Job') {
          jobs.set(o.metadata!.name!, {
            ...o,
            metadata: { ...o.metadata, uid: `uid-${o.metadata!.name}` },
          });
        }
      }
      return [];
    },
  } as unknown as ClusterApplier;
  const client: KubernetesObjectClient = {
    apply: async o => o,
    delete: async () => {},
    async read(ref) {
      const job = jobs.get(ref.name);
      if (!job) {
        throw new KubernetesRequestError(
          `jobs "${ref.name}" not found`,
          'http',
          404,
        );
      }
      return job;
    },
    list: async () => ({ items: [] }),
    serves: async () => true,
  };
  const finish = (name: string, type: 'Complete' | 'Failed', at?: Date) => {
    const job = jobs.get(name)! as any;
    jobs.set(name, {
      ...job,
      status: {
        conditions: [
          {
            type,
            status: 'True',
            ...(at ? { lastTransitionTime: at.toISOString() } : {}),
          },
        ],
      },
    });
  };
  /** What a GitOps controller does once the pull request is merged: the answered Job appears in the cluster. */
  const sync = (submission: BatchJobSubmission) => {
    for (const o of submission.manifests as KubernetesObject[]) {
      if (o.kind === 'Job') {
        jobs.set(o.metadata!.name!, {
          ...o,
          metadata: { ...o.metadata, uid: `uid-${o.metadata!.name}` },
        });
      }
    }
  };
  return { jobs, state, applied, applier, client, finish, sync };
}

describe.each(databases.eachSupportedId())(
  'batch jobs in the ledger on %p',
  id => {
    let knex: Knex;
    let store: DatabaseGpuStore;
    /** The store's and the GitOps tests' clock: the real one unless a test sets it. */
    let clockNow: Date | undefined;
    const clock = () => clockNow ?? new Date();

    beforeAll(async () => {
      knex = await databases.init(id);
      store = await DatabaseGpuStore.create({
        database: mockServices.database({ knex }),
        platform,
        clock,
      });
    });

    beforeEach(async () => {
      clockNow = undefined;
      await knex('reservations').delete();
      await knex('batch_jobs').delete();
      await store.putQuota({
        team: TEAM,
        quota: {
          pools: { 'spot-l4': 6 },
          monthlyBudgetMicros: 100 * GPU_MONTH_MICROS,
        },
        actor: 'user:default/platform-admin',
      });
    });

    function batchJobs(cluster = fakeCluster(), now?: () => Date) {
      return new BatchJobs({
        platform,
        store,
        target: { name: 'local', mode: 'apply', connection: {} as any },
        applier: cluster.applier,
        client: cluster.client,
        logger: mockServices.logger.mock(),
        now,
      });
    }

    const reserved = async () =>
      (await store.getQuota(TEAM))!.reservedGpuEquivalents['spot-l4'] ?? 0;

    it('reserves podsAtOnce x gpusPerPod GPUs in apply mode, where the team quota counts them; a dry run reserves nothing', async () => {
      const cluster = fakeCluster();
      const jobs = batchJobs(cluster);
      const dry = await jobs.submit(
        { request: request('ocr'), dryRun: true },
        ACTOR,
      );
      expect(dry.podsAtOnce).toBe(4);
      expect(await reserved()).toBe(0);

      const sent = await jobs.submit({ request: request('ocr') }, ACTOR);
      expect(sent).toMatchObject({ mode: 'apply', podsAtOnce: 4 });
      expect(await reserved()).toBe(4);
      const quota = (await store.getQuota(TEAM))!;
      expect(quota.reservedMonthlyCostMicros).toBe(4 * GPU_MONTH_MICROS);
      const [active] = await store.listActiveBatchJobs();
      expect(active).toMatchObject({
        id: sent.id,
        name: 'ocr',
        namespace: 'search',
        team: TEAM,
        pool: 'spot-l4',
        mode: 'apply',
        podsAtOnce: 4,
        gpusPerPod: 1,
        state: 'active',
        submittedBy: ACTOR,
      });

      // Two GPUs are left: a Job asking 4 at once gets 2, one needing at least 3 is refused.
      const partial = await jobs.submit(
        { request: request('ocr-2', { minParallelism: 2 }) },
        ACTOR,
      );
      expect(partial.podsAtOnce).toBe(2);
      expect(await reserved()).toBe(6);
      await expect(
        jobs.submit(
          { request: request('ocr-3', { minParallelism: 1 }) },
          ACTOR,
        ),
      ).rejects.toThrow(
        'Team search has 0 of its 6 GPUs on spot-l4 free now (services and batch jobs hold the rest): 0 pods of 1 GPU, fewer than the 1 the Job needs at least',
      );

      const audit = await store.listAuditEvents({ subjectId: sent.id });
      expect(audit.items.map(e => e.action)).toEqual([
        'batch-job.submit',
        'batch-job.reserve',
      ]);
    });

    /** A backend whose default cluster is a GitOps one, read with a read-only client (no applier). */
    function gitopsBatchJobs(
      cluster = fakeCluster(),
      now?: () => Date,
      read = true,
    ) {
      return new BatchJobs({
        platform,
        store,
        target: { name: 'gitops-eu', mode: 'gitops', connection: {} as any },
        client: read ? cluster.client : undefined,
        logger: mockServices.logger.mock(),
        gitopsGraceMs: gitopsBatchGraceMs({
          confirmWithinMs: 60 * 60_000,
          mergeWithinMs: 7 * 24 * 60 * 60_000,
        }),
        now,
      });
    }

    const allocation = async (batchId: string) =>
      (await store.listBatchJobAllocations()).find(
        j => j.batchJob.id === batchId,
      )!;

    it('holds the GPUs of a GitOps batch job at submission like an apply one when its cluster is read: a second one over quota is refused', async () => {
      const cluster = fakeCluster();
      const jobs = gitopsBatchJobs(cluster);
      const sent = await jobs.submit({ request: request('ocr-gitops') }, ACTOR);
      expect(sent).toMatchObject({ mode: 'gitops', podsAtOnce: 4 });
      // Answered for the repository, never applied.
      expect(cluster.applied).toEqual([]);
      expect(cluster.jobs.size).toBe(0);
      expect(await reserved()).toBe(4);
      const quota = (await store.getQuota(TEAM))!;
      expect(quota.reservedMonthlyCostMicros).toBe(4 * GPU_MONTH_MICROS);
      const [active] = await store.listActiveBatchJobs();
      expect(active).toMatchObject({
        id: sent.id,
        name: 'ocr-gitops',
        mode: 'gitops',
        podsAtOnce: 4,
        state: 'active',
      });
      const audit = await store.listAuditEvents({ subjectId: sent.id });
      expect(audit.items.map(e => e.action)).toEqual([
        'batch-job.submit',
        'batch-job.reserve',
      ]);

      // Two GPUs are left: one needing 3 at once is refused, as in apply mode.
      await expect(
        jobs.submit(
          { request: request('ocr-gitops-2', { minParallelism: 3 }) },
          ACTOR,
        ),
      ).rejects.toThrow(
        'Team search has 2 of its 6 GPUs on spot-l4 free now (services and batch jobs hold the rest): 2 pods of 1 GPU, fewer than the 3 the Job needs at least',
      );
      // The same name again, before its Job is in the cluster, would read the same Job back.
      await expect(
        jobs.submit({ request: request('ocr-gitops') }, ACTOR),
      ).rejects.toThrow(ConflictError);
      // A Job of that name already in the cluster is refused too.
      cluster.sync(sent);
      await expect(
        jobs.submit({ request: request('ocr-gitops'), mode: 'gitops' }, ACTOR),
      ).rejects.toThrow(/already exists in namespace search/);
      expect(await reserved()).toBe(4);

      // Apply and GitOps Jobs share the ledger: an apply one gets the 2 GPUs left.
      const apply = await batchJobs().submit(
        { request: request('ocr-apply') },
        ACTOR,
      );
      expect(apply.podsAtOnce).toBe(2);
      expect(await reserved()).toBe(6);
    });

    it('holds no more than the quota under a 20-way race of GitOps Jobs', async () => {
      const jobs = gitopsBatchJobs();
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) =>
          jobs.submit(
            { request: request(`gitops-race-${i}`, { parallelism: 1 }) },
            ACTOR,
          ),
        ),
      );
      expect(results.filter(r => r.status === 'fulfilled')).toHaveLength(6);
      expect(await reserved()).toBe(6);
    });

    it('releases a GitOps batch job when its read-only reader reads it completed or failed, as of its finish time', async () => {
      const cluster = fakeCluster();
      const start = new Date('2026-12-01T10:00:00Z');
      clockNow = start;
      const jobs = gitopsBatchJobs(cluster, clock);
      const a = await jobs.submit(
        { request: request('a', { parallelism: 3 }) },
        ACTOR,
      );
      // Submitted a second later: the sweep reads active jobs oldest first.
      clockNow = new Date(start.getTime() + 1000);
      const b = await jobs.submit(
        { request: request('b', { parallelism: 3 }) },
        ACTOR,
      );
      expect(await reserved()).toBe(6);
      // Merged and synced: the Jobs run; running ones keep their GPUs.
      cluster.sync(a);
      cluster.sync(b);
      clockNow = new Date(start.getTime() + 30 * 60_000);
      expect(await jobs.releaseFinished()).toEqual({
        checked: 2,
        released: [],
        unreadable: [],
      });
      expect(await reserved()).toBe(6);

      const aFinished = new Date(start.getTime() + 2 * 60 * 60_000);
      const bFinished = new Date(start.getTime() + 3 * 60 * 60_000);
      cluster.finish('a', 'Complete', aFinished);
      cluster.finish('b', 'Failed', bFinished);
      // The sweep reads them an hour late: each is released as of when it finished.
      clockNow = new Date(start.getTime() + 4 * 60 * 60_000);
      expect((await jobs.releaseFinished()).released).toEqual([
        { id: a.id, reason: 'the Job completed' },
        { id: b.id, reason: 'the Job failed' },
      ]);
      expect(await reserved()).toBe(0);
      const ofA = await allocation(a.id);
      expect(ofA.batchJob).toMatchObject({
        state: 'finished',
        finishReason: 'the Job completed',
        finishedAt: aFinished.toISOString(),
      });
      expect(ofA.reservations.map(r => r.releasedAt)).toEqual([
        aFinished.toISOString(),
      ]);
      const ofB = await allocation(b.id);
      expect(ofB.batchJob.finishReason).toBe('the Job failed');
      expect(ofB.reservations.map(r => r.releasedAt)).toEqual([
        bFinished.toISOString(),
      ]);
      const audit = await store.listAuditEvents({ subjectId: a.id });
      expect(audit.items[0]).toMatchObject({
        action: 'batch-job.release',
        actor: BATCH_RELEASE_ACTOR,
      });
      expect((await jobs.releaseFinished()).checked).toBe(0);

      // A status read that sees one finished releases it as of its finish time too.
      clockNow = new Date(start.getTime() + 5 * 60 * 60_000);
      const c = await jobs.submit({ request: request('c') }, ACTOR);
      cluster.sync(c);
      const cFinished = new Date(start.getTime() + 6 * 60 * 60_000);
      cluster.finish('c', 'Complete', cFinished);
      clockNow = new Date(start.getTime() + 7 * 60 * 60_000);
      expect((await jobs.status('search', 'c')).state).toBe('succeeded');
      expect(await reserved()).toBe(0);
      expect((await allocation(c.id)).reservations[0].releasedAt).toBe(
        cFinished.toISOString(),
      );
    });

    it('keeps a GitOps batch job whose Job is not in its cluster within the GitOps window after its submission, and releases it after', async () => {
      const cluster = fakeCluster();
      const start = new Date('2026-12-01T10:00:00Z');
      clockNow = start;
      const jobs = gitopsBatchJobs(cluster, clock);
      const sent = await jobs.submit({ request: request('late') }, ACTOR);
      expect(await reserved()).toBe(4);
      // The window: an hour to record the pull request, 7 days to merge it, 10 minutes to sync.
      const grace = 60 * 60_000 + 7 * 24 * 60 * 60_000 + 10 * 60_000;
      expect(DEFAULT_GITOPS_GRACE_MS).toBe(grace);
      for (const after of [11 * 60_000, 3 * 24 * 60 * 60_000, grace - 1]) {
        clockNow = new Date(start.getTime() + after);
        expect(await jobs.releaseFinished()).toEqual({
          checked: 1,
          released: [],
          unreadable: [],
        });
        expect(await reserved()).toBe(4);
      }
      clockNow = new Date(start.getTime() + grace);
      expect((await jobs.releaseFinished()).released).toEqual([
        {
          id: sent.id,
          reason:
            'the Job is not in its cluster within the GitOps window after its submission',
        },
      ]);
      expect(await reserved()).toBe(0);
      const { batchJob, reservations } = await allocation(sent.id);
      expect(batchJob.state).toBe('finished');
      expect(reservations[0].releasedAt).toBe(clockNow.toISOString());
    });

    it('weighs a GitOps submission whose cluster is not read against the free quota but holds nothing: nothing would release it', async () => {
      const sent = await gitopsBatchJobs(
        fakeCluster(),
        undefined,
        false,
      ).submit({ request: request('ocr-gitops') }, ACTOR);
      expect(sent.mode).toBe('gitops');
      expect(sent.podsAtOnce).toBe(4);
      expect(await reserved()).toBe(0);
      expect(await store.listActiveBatchJobs()).toEqual([]);
    });

    it('rolls the reservation back when the apply fails: no quota leaks, no cost', async () => {
      const cluster = fakeCluster();
      cluster.state.failApply = true;
      await expect(
        batchJobs(cluster).submit({ request: request('ocr') }, ACTOR),
      ).rejects.toThrow('the API server is unreachable');
      expect(await reserved()).toBe(0);
      expect(await store.listActiveBatchJobs()).toEqual([]);
      const [{ batchJob, reservations }] =
        await store.listBatchJobAllocations();
      expect(batchJob).toMatchObject({
        state: 'finished',
        finishReason: 'apply failed: the API server is unreachable',
      });
      expect(reservations).toHaveLength(1);
      expect(reservations[0].state).toBe('released');
      // Released as of when it was held: it never held a GPU.
      expect(reservations[0].releasedAt).toBe(reservations[0].heldAt);
      const audit = await store.listAuditEvents({ subjectId: batchJob.id });
      expect(audit.items.map(e => e.action)).toEqual([
        'batch-job.release',
        'batch-job.reserve',
      ]);
    });

    it('releases when the Job completes, fails or is gone, on the sweep and on a status read', async () => {
      const cluster = fakeCluster();
      let now = new Date();
      const jobs = batchJobs(cluster, () => now);
      const a = await jobs.submit(
        { request: request('a', { parallelism: 2 }) },
        ACTOR,
      );
      const b = await jobs.submit(
        { request: request('b', { parallelism: 2 }) },
        ACTOR,
      );
      const c = await jobs.submit(
        { request: request('c', { parallelism: 2 }) },
        ACTOR,
      );
      expect(await reserved()).toBe(6);

      // Running Jobs keep their GPUs.
      expect(await jobs.releaseFinished()).toEqual({
        checked: 3,
        released: [],
        unreadable: [],
      });
      expect(await reserved()).toBe(6);

      cluster.finish('a', 'Complete');
      cluster.finish('b', 'Failed');
      cluster.jobs.delete('c');
      // Missing just after its submission, a Job may still be being applied (by this replica or another one).
      expect((await jobs.releaseFinished()).released).toEqual([
        { id: a.id, reason: 'the Job completed' },
        { id: b.id, reason: 'the Job failed' },
      ]);
      expect(await reserved()).toBe(2);
      now = new Date(now.getTime() + 11 * 60_000);
      const swept = await jobs.releaseFinished();
      expect(swept.released).toEqual([
        { id: c.id, reason: 'the Job is gone from its cluster' },
      ]);
      expect(await reserved()).toBe(0);
      // Released once: a second sweep has nothing to do.
      expect((await jobs.releaseFinished()).checked).toBe(0);
      const audit = await store.listAuditEvents({ subjectId: a.id });
      expect(audit.items[0]).toMatchObject({
        action: 'batch-job.release',
        actor: BATCH_RELEASE_ACTOR,
        after: expect.objectContaining({
          state: 'finished',
          finishReason: 'the Job completed',
          releasedGpuUnits: 2 * 5040,
        }),
      });

      // A status read that sees the Job finished releases it at once.
      const d = await jobs.submit(
        { request: request('d', { parallelism: 3 }) },
        ACTOR,
      );
      expect(await reserved()).toBe(3);
      cluster.finish('d', 'Complete');
      const status = await jobs.status('search', 'd');
      expect(status.state).toBe('succeeded');
      expect(await reserved()).toBe(0);
      expect(
        (await store.listBatchJobAllocations()).find(
          j => j.batchJob.id === d.id,
        )?.batchJob.state,
      ).toBe('finished');
    });

    it('lets only one of two concurrent submissions pass when only one fits', async () => {
      const jobs = batchJobs();
      const results = await Promise.allSettled(
        ['x', 'y'].map(name =>
          jobs.submit(
            { request: request(name, { parallelism: 4, minParallelism: 4 }) },
            ACTOR,
          ),
        ),
      );
      expect(results.filter(r => r.status === 'fulfilled')).toHaveLength(1);
      const [refused] = results.filter(
        (r): r is PromiseRejectedResult => r.status === 'rejected',
      );
      expect(refused.reason).toBeInstanceOf(ConflictError);
      expect(await reserved()).toBe(4);
    });

    it('holds no more than the quota under a 20-way race of one-GPU Jobs', async () => {
      const jobs = batchJobs();
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) =>
          jobs.submit(
            { request: request(`race-${i}`, { parallelism: 1 }) },
            ACTOR,
          ),
        ),
      );
      expect(results.filter(r => r.status === 'fulfilled')).toHaveLength(6);
      expect(await reserved()).toBe(6);
      const [{ total }] = await knex('reservations')
        .where({ state: 'held' })
        .sum({ total: 'gpu_units' });
      expect(Number(total)).toBe(6 * 5040);
    });

    it('counts what services hold on the pool against the Job', async () => {
      await store.createServiceWithReservation({
        name: 'reranker',
        team: TEAM,
        namespace: TEAM,
        environment: 'dev',
        tier: 'dedicated',
        pool: 'spot-l4',
        request: {
          name: 'reranker',
          team: TEAM,
          model: 'llama-3.1-8b',
          runtime: 'vllm',
          maxModelLen: 8192,
          concurrency: 8,
          replicas: 5,
          environment: 'dev',
          tier: 'dedicated',
          pool: 'spot-l4',
        } as any,
        placement: { tier: 'dedicated', pool: 'spot-l4', gpusPerReplica: 1 },
        mode: 'dry-run',
        reservation: {
          gpuEquivalents: 5,
          monthlyCostMicros: 5 * GPU_MONTH_MICROS,
        },
        policy: { whenOverQuota: 'reject' },
        actor: ACTOR,
      });
      const sent = await batchJobs().submit(
        { request: request('ocr', { parallelism: 4 }) },
        ACTOR,
      );
      expect(sent.podsAtOnce).toBe(1);
      expect(await reserved()).toBe(6);
    });

    it('migrates down (batch jobs and their reservations go) and up again', async () => {
      await batchJobs().submit({ request: request('ocr') }, ACTOR);
      const directory = resolvePackagePath(
        '@gpu-platform/backstage-plugin-gpu-backend',
        'migrations',
      );
      const name = '20261203150000_batch_job_reservations.js';
      await knex.migrate.down({ directory, name });
      expect(await knex.schema.hasTable('batch_jobs')).toBe(false);
      expect(await knex.schema.hasColumn('reservations', 'batch_job_id')).toBe(
        false,
      );
      const [{ n }] = await knex('reservations').count({ n: '*' });
      expect(Number(n)).toBe(0);
      await knex.migrate.latest({ directory });
      expect(await knex.schema.hasTable('batch_jobs')).toBe(true);
      expect(await reserved()).toBe(0);
    });
  },
);
