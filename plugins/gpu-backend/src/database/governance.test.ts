import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { ConflictError, InputError, NotAllowedError } from '@backstage/errors';
import { Knex } from 'knex';
import { storePlatform } from './__testUtils__/storePlatform';
import { DatabaseGpuStore } from './DatabaseGpuStore';
import { CreateServiceInput } from './types';

jest.setTimeout(60_000);

const databases = TestDatabases.create({ ids: ['POSTGRES_15', 'SQLITE_3'] });

const ALICE = 'user:default/alice';
const BOB = 'user:default/bob';
const ADMIN = 'user:default/platform-admin';

/** One H100 for a month of 730 hours: $55.04 per node-hour / 8 GPUs x 730. */
const H100_MONTH = 5_022_400_000;
/** One a100 GPU for one hour of the store platform: $5.4795 / 8. */
const A100_HOUR = 684_937.5;

const SPOT_REASON =
  "Pool spot is spot capacity, which can be reclaimed with two minutes' notice: wrong for production inference " +
  'in production; an approver must accept that risk, or choose an on-demand pool';

function request(
  name: string,
  overrides: Partial<CreateServiceInput> & { gpus?: number } = {},
): CreateServiceInput {
  const { gpus = 1, ...rest } = overrides;
  const team = rest.team ?? 'search';
  const pool = rest.pool ?? 'h100';
  const environment = rest.environment ?? 'dev';
  return {
    name,
    team,
    namespace: team,
    environment,
    tier: 'dedicated',
    pool,
    request: {
      name,
      team,
      model: 'llama-3.1-8b',
      runtime: 'vllm',
      maxModelLen: 8192,
      concurrency: 8,
      replicas: gpus,
      environment,
      tier: 'dedicated',
      pool,
    },
    placement: { tier: 'dedicated', pool, gpusPerReplica: 1 },
    mode: 'dry-run',
    reservation: {
      gpuEquivalents: gpus,
      monthlyCostMicros: gpus * (pool === 'h100' ? H100_MONTH : 500_000_000),
    },
    policy: { whenOverQuota: 'require-approval' },
    actor: ALICE,
    ...rest,
  };
}

function migSlices(name: string, team: string, slices: number) {
  return request(name, {
    team,
    pool: 'mig',
    tier: 'mig',
    placement: {
      tier: 'mig',
      pool: 'mig',
      migProfile: '1g.10gb',
      gpusPerReplica: 1,
    },
    reservation: { gpuEquivalents: slices / 7, monthlyCostMicros: slices },
  });
}

describe.each(databases.eachSupportedId())('governance on %p', id => {
  let knex: Knex;
  let store: DatabaseGpuStore;
  let now: Date;

  beforeAll(async () => {
    knex = await databases.init(id);
    store = await DatabaseGpuStore.create({
      database: mockServices.database({ knex }),
      platform: storePlatform,
      clock: () => now,
    });
  });

  beforeEach(async () => {
    now = new Date('2026-12-21T00:00:00.000Z');
    for (const table of [
      'audit_events',
      'approvals',
      'reservations',
      'services',
      'pool_quotas',
      'team_quotas',
    ]) {
      await knex(table).delete();
    }
    // The team: no H100 quota and a $4,000 budget.
    await store.putQuota({
      team: 'search',
      quota: {
        pools: { h100: 0, spot: 8, a100: 4, mig: 0 },
        monthlyBudgetMicros: 4_000_000_000,
      },
      actor: ADMIN,
    });
    await store.putQuota({
      team: 'ml',
      quota: {
        pools: { h100: 4, a100: 8, mig: 1 },
        monthlyBudgetMicros: 100_000_000_000,
      },
      actor: ADMIN,
    });
  });

  /** Every row the store writes, to show that a refusal leaves nothing behind. */
  async function tables() {
    return {
      services: await knex('services').orderBy('id'),
      reservations: await knex('reservations').orderBy('id'),
      approvals: await knex('approvals').orderBy('id'),
      audit: await knex('audit_events').orderBy('id'),
    };
  }

  async function pending(input: CreateServiceInput) {
    const result = await store.createServiceWithReservation(input);
    expect(result.service.status).toBe('pending-approval');
    return result;
  }

  describe('four eyes', () => {
    it('refuses the requester approving or rejecting their own request, leaving everything as it was', async () => {
      const { approval } = await pending(request('big', { gpus: 8 }));
      const before = await tables();

      await expect(
        store.decideApproval({
          id: approval!.id,
          decision: 'approve',
          actor: ALICE,
          allowOverQuota: true,
        }),
      ).rejects.toThrow(
        new NotAllowedError(
          `user:default/alice cannot decide their own request: approval ${
            approval!.id
          } for 'big' was requested by user:default/alice; another approver must approve it`,
        ),
      );
      // Entity refs compare case-insensitively, and `user:alice` is `user:default/alice`.
      for (const actor of ['user:default/Alice', 'user:alice']) {
        await expect(
          store.decideApproval({
            id: approval!.id,
            decision: 'reject',
            actor,
          }),
        ).rejects.toThrow(
          new NotAllowedError(
            `${actor} cannot decide their own request: approval ${
              approval!.id
            } for 'big' was requested by user:default/alice; another approver must reject it`,
          ),
        );
      }
      expect(await tables()).toEqual(before);
    });

    it('refuses service principals and system actors: approvals are a human decision', async () => {
      const { approval } = await pending(request('big', { gpus: 8 }));
      const before = await tables();
      for (const [actor, decision] of [
        ['service:external:ci-bot', 'approve'],
        ['service:plugin:scaffolder', 'reject'],
        ['system:gpu-status-refresh', 'approve'],
      ] as const) {
        await expect(
          store.decideApproval({
            id: approval!.id,
            decision,
            actor,
            allowOverQuota: decision === 'approve',
          }),
        ).rejects.toThrow(
          new NotAllowedError(
            `Only a user can ${decision} a GPU request: '${actor}' is not a user. Approvals are a human ` +
              `decision; service principals may neither approve nor reject`,
          ),
        );
      }
      expect(await tables()).toEqual(before);
    });

    it('refuses the creator of a new service even when another actor recorded the request', async () => {
      const { approval, service } = await pending(request('big', { gpus: 8 }));
      await knex('approvals')
        .where({ id: approval!.id })
        .update({ requested_by: 'service:plugin:scaffolder' });
      await expect(
        store.decideApproval({
          id: approval!.id,
          decision: 'approve',
          actor: ALICE,
          allowOverQuota: true,
        }),
      ).rejects.toThrow(
        new NotAllowedError(
          `user:default/alice cannot decide their own request: 'big' was created by user:default/alice; ` +
            `another approver must approve it`,
        ),
      );
      expect((await store.getService(service.id))!.status).toBe(
        'pending-approval',
      );
    });

    it('lets another user decide, and keeps four eyes on changes', async () => {
      const created = await store.createServiceWithReservation(
        request('svc', { team: 'ml', pool: 'a100' }),
      );
      expect(created.service.status).toBe('approved');
      const change = await store.replaceReservation({
        serviceId: created.service.id,
        change: {
          tier: 'dedicated',
          pool: 'a100',
          request: { ...created.service.request, replicas: 2 },
          placement: created.service.placement,
        },
        reservation: { gpuEquivalents: 2, monthlyCostMicros: 1_000_000_000 },
        policy: {
          whenOverQuota: 'reject',
          approvalReasons: [{ code: 'policy', message: 'needs a look' }],
        },
        actor: BOB,
      });
      expect(change.outcome).toBe('pending-approval');
      const approvalId = (change as { approval: { id: string } }).approval.id;
      await expect(
        store.decideApproval({
          id: approvalId,
          decision: 'approve',
          actor: BOB,
        }),
      ).rejects.toThrow(NotAllowedError);
      const decided = await store.decideApproval({
        id: approvalId,
        decision: 'approve',
        actor: ALICE,
      });
      expect(decided.approval).toMatchObject({
        state: 'approved',
        decidedBy: ALICE,
        requestedBy: BOB,
      });
      expect(decided.service.request.replicas).toBe(2);
    });
  });

  describe('over quota and physical capacity', () => {
    it('refuses at creation a request that cannot fit its pool physically, writing nothing', async () => {
      const before = await tables();
      await expect(
        store.createServiceWithReservation(request('huge', { gpus: 16 })),
      ).rejects.toThrow(
        new InputError(
          'The request needs 16 GPU-equivalents of pool h100, more than its physical capacity of 8 GPUs ' +
            '(1 node x 8 GPUs); ask for fewer replicas or another pool',
        ),
      );
      await expect(
        store.createServiceWithReservation(migSlices('slices', 'ml', 8)),
      ).rejects.toThrow(
        new InputError(
          'The request needs 8 1g.10gb slices of pool mig, more than its physical capacity of 7 1g.10gb slots ' +
            '(1 node x 1 GPU x 7 per GPU); ask for fewer replicas or another pool',
        ),
      );
      expect(await tables()).toEqual(before);

      const { service } = await store.createServiceWithReservation(
        request('small', { team: 'ml', gpus: 2 }),
      );
      const afterCreate = await tables();
      await expect(
        store.replaceReservation({
          serviceId: service.id,
          change: {
            tier: 'dedicated',
            pool: 'h100',
            request: { ...service.request, replicas: 9 },
            placement: service.placement,
          },
          reservation: { gpuEquivalents: 9, monthlyCostMicros: 9 * H100_MONTH },
          policy: { whenOverQuota: 'require-approval' },
          actor: ALICE,
        }),
      ).rejects.toThrow(
        new InputError(
          'The request needs 9 GPU-equivalents of pool h100, more than its physical capacity of 8 GPUs ' +
            '(1 node x 8 GPUs); ask for fewer replicas or another pool',
        ),
      );
      expect(await tables()).toEqual(afterCreate);
    });

    it('approves beyond quota and budget only when asked, and records and audits by how much', async () => {
      // The issue: 8 H100s (the pool's whole capacity) against a quota of 0 and a $4,000 budget.
      const { approval, service } = await pending(request('big', { gpus: 8 }));
      expect(approval!.reasons.map(r => r.code)).toEqual([
        'over-quota',
        'over-budget',
        'over-budget-this-month',
      ]);
      const overage = {
        computedAt: '2026-12-21T00:00:00.000Z',
        overQuota: true,
        monthlyCostMicros: 8 * H100_MONTH,
        pools: [
          {
            pool: 'h100',
            quotaGpuEquivalents: 0,
            heldGpuEquivalents: 0,
            requestedGpuEquivalents: 8,
            overGpuEquivalents: 8,
            overMonthlyCostMicros: 8 * H100_MONTH,
            capacityGpuEquivalents: 8,
            poolHeldGpuEquivalents: 0,
          },
        ],
        budget: {
          monthlyBudgetMicros: 4_000_000_000,
          committedMonthlyCostMicros: 0,
          overMonthlyCostMicros: 8 * H100_MONTH - 4_000_000_000,
          month: '2026-12',
          monthToDateMicros: 0,
          // 8 GPUs x 264 hours (11 days) left x $6.88.
          projectedMonthMicros: 14_530_560_000,
          overProjectedMicros: 10_530_560_000,
        },
      };
      expect(approval!.overage).toEqual(overage);

      const before = await tables();
      await expect(
        store.decideApproval({
          id: approval!.id,
          decision: 'approve',
          actor: ADMIN,
        }),
      ).rejects.toThrow(
        new ConflictError(
          "Approving would over-allocate: Team 'search' asks for 8 GPU-equivalents in pool 'h100' but only 0 " +
            "of 0 are free; Team 'search' asks for $40,179.20 a month but only $4,000.00 of its $4,000.00 " +
            "monthly budget is free; Team 'search' has spent $0.00 in 2026-12; with what it holds ($0.00) and " +
            'this request ($14,530.56) until the end of the month it would spend $14,530.56, above its ' +
            '$4,000.00 monthly budget. Approve with allowOverQuota to grant it anyway',
        ),
      );
      expect(await tables()).toEqual(before);

      now = new Date('2026-12-21T06:00:00.000Z');
      const decided = await store.decideApproval({
        id: approval!.id,
        decision: 'approve',
        actor: ADMIN,
        comment: 'launch',
        allowOverQuota: true,
      });
      // 6 hours later: 258 hours left.
      const granted = {
        ...overage,
        computedAt: '2026-12-21T06:00:00.000Z',
        budget: {
          ...overage.budget,
          projectedMonthMicros: 14_200_320_000,
          overProjectedMicros: 10_200_320_000,
        },
      };
      expect(decided.approval).toMatchObject({
        state: 'approved',
        decidedBy: ADMIN,
        overage: granted,
      });
      expect(decided.reservation.state).toBe('held');
      expect(decided.service.statusReason).toBe(
        `Approved by ${ADMIN}: launch. Granted beyond quota or budget (allowOverQuota): 8 GPU-equivalents over ` +
          'quota in pool h100 ($40,179.20 a month); $36,179.20 a month over budget; $10,200.32 over budget in ' +
          '2026-12 (month-to-date $0.00, projected $14,200.32 of $4,000.00)',
      );
      expect((await store.getApproval(approval!.id))!.overage).toEqual(granted);
      const [event] = (
        await store.listAuditEvents({ action: 'approval.approve' })
      ).items;
      expect(event).toMatchObject({
        actor: ADMIN,
        subjectId: approval!.id,
        before: { state: 'pending', overage },
        after: { state: 'approved', overage: granted },
      });
      expect((await store.getQuota('search'))!.reservedGpuEquivalents).toEqual({
        h100: 8,
      });
      expect((await store.getService(service.id))!.status).toBe('approved');
    });

    it('never approves beyond the pool physical capacity, even with allowOverQuota', async () => {
      const held = await store.createServiceWithReservation(
        request('ml-h100', { team: 'ml', gpus: 4 }),
      );
      expect(held.service.status).toBe('approved');
      const { approval } = await pending(request('big', { gpus: 8 }));
      expect(approval!.overage!.pools[0]).toMatchObject({
        capacityGpuEquivalents: 8,
        poolHeldGpuEquivalents: 4,
      });
      const before = await tables();
      await expect(
        store.decideApproval({
          id: approval!.id,
          decision: 'approve',
          actor: ADMIN,
          allowOverQuota: true,
        }),
      ).rejects.toThrow(
        new ConflictError(
          "Approving would exceed the physical capacity of pool 'h100': it has 8 GPUs (1 node x 8 GPUs), 4 " +
            'GPU-equivalents are held by all teams and this request needs 8. Nothing is granted beyond what the ' +
            'pool physically has, even with allowOverQuota; free capacity first, or reject the request',
        ),
      );
      expect(await tables()).toEqual(before);
      expect((await store.getQuota('search'))!.reservedGpuEquivalents).toEqual(
        {},
      );

      // What approving now would grant, against what is held now.
      const [preview] = await store.previewApprovals([approval!]);
      expect(preview.overage!.pools[0].poolHeldGpuEquivalents).toBe(4);

      await store.releaseReservation({
        serviceId: held.service.id,
        actor: ALICE,
      });
      const [freed] = await store.previewApprovals([approval!]);
      expect(freed.overage!.pools[0].poolHeldGpuEquivalents).toBe(0);
      const decided = await store.decideApproval({
        id: approval!.id,
        decision: 'approve',
        actor: ADMIN,
        allowOverQuota: true,
      });
      expect(decided.reservation.state).toBe('held');
    });

    it('lists pending requests with why they need an approver now: a quota raised since drops the over-quota reason', async () => {
      // search has no H100 quota and $4,000 a month: one H100 ($5,022 a month) is over quota and budget; three are
      // also above the 2 dedicated GPUs dev allows without approval. The quote's findings come as policy reasons, its
      // quota in its own words.
      const quoted = (gpus: number) => ({
        code: 'policy',
        message: `Needs ${gpus} GPU-equivalents of pool h100; team search has 0 of 0 left`,
      });
      const dedicated = {
        code: 'policy',
        message:
          '3 dedicated GPUs (3 replicas x 1) is above the 2 that dev allows without approval',
      };
      const one = await pending(
        request('one', {
          gpus: 1,
          policy: {
            whenOverQuota: 'require-approval',
            approvalReasons: [quoted(1)],
          },
        }),
      );
      const three = await pending(
        request('three', {
          gpus: 3,
          policy: {
            whenOverQuota: 'require-approval',
            approvalReasons: [quoted(3), dedicated],
          },
        }),
      );
      const approvals = [one.approval!, three.approval!];
      const overQuota = {
        code: 'over-quota',
        message:
          "Team 'search' asks for 1 GPU-equivalents in pool 'h100' but only 0 of 0 are free",
      };
      expect(one.approval!.reasons).toEqual([
        quoted(1),
        overQuota,
        expect.objectContaining({ code: 'over-budget' }),
      ]);
      const codes = async () =>
        (await store.previewApprovals(approvals)).map(a =>
          a.reasons.map(r => r.code),
        );

      // Listed now: the quote's quota words give way to admission's own, weighed on the current ledger.
      const [listedOne] = await store.previewApprovals(approvals);
      expect(listedOne.reasons).toEqual([
        overQuota,
        expect.objectContaining({ code: 'over-budget' }),
      ]);

      // The platform team raises the H100 quota: no longer over quota, still over budget.
      await store.putQuota({
        team: 'search',
        quota: {
          pools: { h100: 4, spot: 8, a100: 4, mig: 0 },
          monthlyBudgetMicros: 4_000_000_000,
        },
        actor: ADMIN,
      });
      expect(await codes()).toEqual([
        ['over-budget'],
        ['policy', 'over-budget', 'over-budget-this-month'],
      ]);
      const listed = await store.previewApprovals(approvals);
      for (const approval of listed) {
        expect(approval.reasons.map(r => r.message).join('\n')).not.toMatch(
          /quota|0 of 0|left/,
        );
        expect(approval.overage!.pools[0]).toMatchObject({
          quotaGpuEquivalents: 4,
          overGpuEquivalents: 0,
        });
      }

      // And the budget: the single H100 needs no approver now; three still need one for the dedicated GPUs.
      await store.putQuota({
        team: 'search',
        quota: {
          pools: { h100: 4, spot: 8, a100: 4, mig: 0 },
          monthlyBudgetMicros: 100_000_000_000,
        },
        actor: ADMIN,
      });
      const [nowOne, nowThree] = await store.previewApprovals(approvals);
      expect(nowOne.reasons).toEqual([]);
      expect(nowOne.overage!.overQuota).toBe(false);
      expect(nowThree.reasons).toEqual([dedicated]);
      expect(nowThree.overage!.overQuota).toBe(false);

      // What was recorded with the request stays as it was.
      expect((await store.getApproval(one.approval!.id))!.reasons).toEqual(
        one.approval!.reasons,
      );

      // One read for the page, however many approvals it holds.
      const queriesOf = async (page: typeof approvals) => {
        let queries = 0;
        const count = () => {
          queries += 1;
        };
        knex.on('query', count);
        try {
          await store.previewApprovals(page);
        } finally {
          knex.removeListener('query', count);
        }
        return queries;
      };
      expect(await queriesOf(approvals)).toBe(await queriesOf([approvals[0]]));
    });

    it('serialises approvals on one pool across teams: parallel approvals never exceed its capacity', async () => {
      const teams = ['t1', 't2', 't3', 't4', 't5', 't6'];
      const approvals = [];
      for (const team of teams) {
        await store.putQuota({
          team,
          quota: { pools: { h100: 0 }, monthlyBudgetMicros: 10 ** 12 },
          actor: ADMIN,
        });
        approvals.push(
          (await pending(request(`${team}-h100`, { team, gpus: 3 }))).approval!,
        );
      }
      const results = await Promise.allSettled(
        approvals.map(a =>
          store.decideApproval({
            id: a.id,
            decision: 'approve',
            actor: ADMIN,
            allowOverQuota: true,
          }),
        ),
      );
      expect(results.filter(r => r.status === 'fulfilled')).toHaveLength(2);
      for (const r of results.filter(x => x.status === 'rejected')) {
        expect((r as PromiseRejectedResult).reason).toBeInstanceOf(
          ConflictError,
        );
        expect((r as PromiseRejectedResult).reason.message).toMatch(
          /^Approving would exceed the physical capacity of pool 'h100': it has 8 GPUs \(1 node x 8 GPUs\), 6 GPU-equivalents are held/,
        );
      }
      const [held] = await knex('reservations')
        .where({ pool: 'h100', state: 'held' })
        .sum({ units: 'gpu_units' });
      expect(Number(held.units)).toBe(6 * 5040);
    });

    it('counts MIG slots of the profile against the layout', async () => {
      const held = await store.createServiceWithReservation(
        migSlices('ml-slices', 'ml', 5),
      );
      expect(held.service.status).toBe('approved');
      const { approval } = await pending(migSlices('more', 'search', 3));
      const before = await tables();
      await expect(
        store.decideApproval({
          id: approval!.id,
          decision: 'approve',
          actor: ADMIN,
          allowOverQuota: true,
        }),
      ).rejects.toThrow(
        new ConflictError(
          "Approving would exceed the physical capacity of pool 'mig': it has 7 1g.10gb slots (1 node x 1 GPU " +
            'x 7 per GPU), 5 are held by all teams and this request needs 3. Nothing is granted beyond what the ' +
            'pool physically has, even with allowOverQuota; free capacity first, or reject the request',
        ),
      );
      expect(await tables()).toEqual(before);
    });
  });

  describe('budgets on month-to-date spend', () => {
    beforeEach(async () => {
      await store.putQuota({
        team: 'nlp',
        quota: { pools: { a100: 8 }, monthlyBudgetMicros: 1_050_000_000 },
        actor: ADMIN,
      });
    });

    /** 4 GPUs granted over budget on December 1st, released on the 21st: 480 hours x 4 GPUs spent. */
    async function burnEarlierThisMonth() {
      now = new Date('2026-12-01T00:00:00.000Z');
      const early = await pending(
        request('early', { team: 'nlp', pool: 'a100', gpus: 4 }),
      );
      await store.decideApproval({
        id: early.approval!.id,
        decision: 'approve',
        actor: ADMIN,
        allowOverQuota: true,
      });
      now = new Date('2026-12-21T00:00:00.000Z');
      await store.releaseReservation({
        serviceId: early.service.id,
        actor: ALICE,
      });
    }

    const monthReason =
      "Team 'nlp' has spent $1,315.08 in 2026-12; with what it holds ($0.00) and this request ($180.82) until " +
      'the end of the month it would spend $1,495.90, above its $1,050.00 monthly budget';

    it('refuses what fits the run-rate but not the month, and admits it next month', async () => {
      await burnEarlierThisMonth();
      expect(await store.getMonthSpendSnapshot('nlp', 0)).toEqual({
        month: '2026-12',
        monthToDate: 4 * 480 * A100_HOUR,
        heldRestOfMonth: 0,
        secondsLeft: 11 * 86_400,
      });

      const before = await tables();
      await expect(
        store.createServiceWithReservation(
          request('late', {
            team: 'nlp',
            pool: 'a100',
            policy: { whenOverQuota: 'reject' },
          }),
        ),
      ).rejects.toThrow(new ConflictError(monthReason));
      expect(await tables()).toEqual(before);

      const waiting = await pending(
        request('late', { team: 'nlp', pool: 'a100' }),
      );
      expect(waiting.approval!.reasons).toEqual([
        { code: 'over-budget-this-month', message: monthReason },
      ]);
      expect(waiting.approval!.overage!.budget).toEqual({
        monthlyBudgetMicros: 1_050_000_000,
        committedMonthlyCostMicros: 0,
        overMonthlyCostMicros: 0,
        month: '2026-12',
        monthToDateMicros: 1_315_080_000,
        projectedMonthMicros: 1_315_080_000 + 264 * A100_HOUR,
        overProjectedMicros: 264 * A100_HOUR,
      });

      now = new Date('2027-01-01T00:00:00.000Z');
      const nextMonth = await store.createServiceWithReservation(
        request('january', {
          team: 'nlp',
          pool: 'a100',
          policy: { whenOverQuota: 'reject' },
        }),
      );
      expect(nextMonth.service.status).toBe('approved');
    });

    it('accrues a changed reservation until the change and the new one from then', async () => {
      now = new Date('2026-12-01T00:00:00.000Z');
      const { service } = await store.createServiceWithReservation(
        request('grows', { team: 'ml', pool: 'a100' }),
      );
      now = new Date('2026-12-11T00:00:00.000Z');
      await store.replaceReservation({
        serviceId: service.id,
        change: {
          tier: 'dedicated',
          pool: 'a100',
          request: { ...service.request, replicas: 2 },
          placement: service.placement,
        },
        reservation: { gpuEquivalents: 2, monthlyCostMicros: 1_000_000_000 },
        policy: { whenOverQuota: 'reject' },
        actor: ALICE,
      });
      now = new Date('2026-12-21T00:00:00.000Z');
      expect(await store.getMonthSpendSnapshot('ml', 0)).toEqual({
        month: '2026-12',
        monthToDate: (240 + 2 * 240) * A100_HOUR,
        heldRestOfMonth: 2 * 264 * A100_HOUR,
        secondsLeft: 11 * 86_400,
      });
    });
  });

  describe('spot capacity in production', () => {
    it('sends a production service on a spot pool to approval with the reason, a dev one straight through', async () => {
      const production = await store.createServiceWithReservation(
        request('prod', {
          pool: 'spot',
          environment: 'production',
          policy: { whenOverQuota: 'reject' },
        }),
      );
      expect(production.service).toMatchObject({
        status: 'pending-approval',
        statusReason: SPOT_REASON,
      });
      expect(production.approval!.reasons).toEqual([
        { code: 'spot-in-production', message: SPOT_REASON },
      ]);
      expect(production.reservation.state).toBe('pending');

      // The quote's reason, passed as a policy reason, is the store's own: listed once, with its code.
      const quoted = await store.createServiceWithReservation(
        request('prod-quoted', {
          pool: 'spot',
          environment: 'production',
          policy: {
            whenOverQuota: 'reject',
            approvalReasons: [{ code: 'policy', message: SPOT_REASON }],
          },
        }),
      );
      expect(quoted.approval!.reasons).toEqual([
        { code: 'spot-in-production', message: SPOT_REASON },
      ]);

      const dev = await store.createServiceWithReservation(
        request('dev', { pool: 'spot', policy: { whenOverQuota: 'reject' } }),
      );
      expect(dev.service.status).toBe('approved');
      expect(dev.approval).toBeUndefined();
    });

    it('sends a change of a production service onto spot capacity to approval', async () => {
      const { service } = await store.createServiceWithReservation(
        request('prod', {
          pool: 'a100',
          environment: 'production',
          policy: { whenOverQuota: 'reject' },
        }),
      );
      expect(service.status).toBe('approved');
      const change = await store.replaceReservation({
        serviceId: service.id,
        change: {
          tier: 'dedicated',
          pool: 'spot',
          request: { ...service.request, pool: 'spot' },
          placement: { ...service.placement, pool: 'spot' },
        },
        reservation: { gpuEquivalents: 1, monthlyCostMicros: 100_000_000 },
        policy: { whenOverQuota: 'reject' },
        actor: ALICE,
      });
      expect(change).toMatchObject({
        outcome: 'pending-approval',
        approval: {
          kind: 'change',
          reasons: [{ code: 'spot-in-production', message: SPOT_REASON }],
        },
      });
      expect((await store.getService(service.id))!.pool).toBe('a100');
    });
  });
});
