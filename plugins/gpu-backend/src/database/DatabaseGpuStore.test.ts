import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { ConflictError, InputError, NotFoundError } from '@backstage/errors';
import { Knex } from 'knex';
import { storePlatform } from './__testUtils__/storePlatform';
import { DatabaseGpuStore } from './DatabaseGpuStore';
import { CreateServiceInput } from './types';

jest.setTimeout(60_000);

const databases = TestDatabases.create({ ids: ['POSTGRES_15', 'SQLITE_3'] });

// TestDatabases silently drops PostgreSQL when it has no connection string (and no
// Docker); CI sets GPU_REQUIRE_POSTGRES=1 so a missing engine fails instead of passing.
const requiredIds =
  process.env.GPU_REQUIRE_POSTGRES === '1'
    ? [['POSTGRES_15'], ['SQLITE_3']]
    : [['SQLITE_3']];
if (
  process.env.GPU_REQUIRE_POSTGRES === '1' &&
  !databases.supports('POSTGRES_15')
) {
  throw new Error(
    'GPU_REQUIRE_POSTGRES=1 but PostgreSQL is unavailable: set BACKSTAGE_TEST_DATABASE_POSTGRES15_CONNECTION_STRING',
  );
}

it('runs on every engine that is required', () => {
  expect(databases.eachSupportedId()).toEqual(
    expect.arrayContaining(requiredIds),
  );
});

const USER = 'user:default/alice';
const ADMIN = 'user:default/platform-admin';
const migPlacement = {
  tier: 'mig' as const,
  pool: 'mig',
  migProfile: '1g.10gb',
  gpusPerReplica: 1,
};

function request(
  name: string,
  overrides: Partial<CreateServiceInput> = {},
): CreateServiceInput {
  return {
    name,
    team: 'ml',
    namespace: 'ml',
    entityRef: `component:default/${name}`,
    environment: 'dev',
    tier: 'dedicated',
    pool: 'a100',
    request: {
      name,
      team: 'ml',
      model: 'llama-3.1-8b',
      runtime: 'vllm',
      maxModelLen: 8192,
      concurrency: 8,
      replicas: 1,
      environment: 'dev',
      tier: 'dedicated',
      pool: 'a100',
    },
    placement: { tier: 'dedicated', pool: 'a100', gpusPerReplica: 1 },
    quote: { monthlyCostMicros: 500_000_000 },
    mode: 'dry-run',
    reservation: { gpuEquivalents: 1, monthlyCostMicros: 500_000_000 },
    policy: { whenOverQuota: 'reject' },
    actor: USER,
    ...overrides,
  };
}

describe.each(databases.eachSupportedId())('DatabaseGpuStore on %p', id => {
  let knex: Knex;
  let store: DatabaseGpuStore;

  // One database per engine, migrated once; each test starts from empty tables.
  beforeAll(async () => {
    knex = await databases.init(id);
    store = await DatabaseGpuStore.create({
      database: mockServices.database({ knex }),
      platform: storePlatform,
    });
  });

  beforeEach(async () => {
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
    await store.putQuota({
      team: 'ml',
      quota: {
        pools: { a100: 4, mig: 1 },
        monthlyBudgetMicros: 10_000_000_000,
      },
      actor: ADMIN,
    });
  });

  async function ledger(team = 'ml') {
    return knex('reservations')
      .where({ team })
      .select('state', 'gpu_units', 'monthly_cost_micros');
  }

  it('admits a request that fits and records it with its reservation', async () => {
    const result = await store.createServiceWithReservation(request('a'));

    expect(result.created).toBe(true);
    expect(result.approval).toBeUndefined();
    expect(result.service).toMatchObject({
      name: 'a',
      team: 'ml',
      status: 'approved',
      mode: 'dry-run',
      createdBy: USER,
      placement: { tier: 'dedicated', gpusPerReplica: 1 },
    });
    expect(result.reservation).toMatchObject({
      serviceId: result.service.id,
      gpuEquivalents: 1,
      monthlyCostMicros: 500_000_000,
      state: 'held',
    });
    expect(await store.getService(result.service.id)).toEqual(result.service);
    expect(await store.listReservations(result.service.id)).toEqual([
      result.reservation,
    ]);
    const quota = await store.getQuota('ml');
    expect(quota).toMatchObject({
      pools: { a100: 4, mig: 1 },
      reservedGpuEquivalents: { a100: 1 },
      reservedMonthlyCostMicros: 500_000_000,
    });
  });

  it('rejects an over-quota request without writing anything', async () => {
    await expect(
      store.createServiceWithReservation(
        request('big', {
          reservation: { gpuEquivalents: 5, monthlyCostMicros: 1 },
        }),
      ),
    ).rejects.toThrow(
      new ConflictError(
        "Team 'ml' asks for 5 GPU-equivalents in pool 'a100' but only 4 of 4 are free",
      ),
    );
    expect(await knex('services')).toHaveLength(0);
    expect(await ledger()).toHaveLength(0);
  });

  it("never admits more than the team's quota: ten of its creates race for its 4 GPU-equivalents", async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        store.createServiceWithReservation(request(`race-${i}`)),
      ),
    );
    const refused = results.flatMap(r =>
      r.status === 'rejected' ? [r.reason] : [],
    );
    expect(refused).toHaveLength(6);
    for (const error of refused) {
      expect(error).toBeInstanceOf(ConflictError);
    }
    expect(await ledger()).toHaveLength(4);
    expect(await knex('services')).toHaveLength(4);
  });

  it('rejects over budget and a team without quota', async () => {
    await expect(
      store.createServiceWithReservation(
        request('pricey', {
          reservation: { gpuEquivalents: 1, monthlyCostMicros: 10_000_000_001 },
        }),
      ),
    ).rejects.toThrow(/only \$10,000\.00 of its \$10,000\.00 monthly budget/);
    await expect(
      store.createServiceWithReservation(request('x', { team: 'nobody' })),
    ).rejects.toThrow(/Team 'nobody' has no GPU quota/);
  });

  it('validates amounts and policy', async () => {
    await expect(
      store.createServiceWithReservation(
        request('a', {
          reservation: { gpuEquivalents: 0, monthlyCostMicros: 0 },
        }),
      ),
    ).rejects.toThrow(InputError);
    await expect(
      store.createServiceWithReservation(
        request('a', {
          reservation: { gpuEquivalents: 1, monthlyCostMicros: 1.5 },
        }),
      ),
    ).rejects.toThrow(/whole number of micro-dollars/);
    await expect(
      store.createServiceWithReservation(
        request('a', { policy: { whenOverQuota: 'maybe' as 'reject' } }),
      ),
    ).rejects.toThrow(/'reject' or 'require-approval'/);
  });

  it('counts MIG sevenths exactly', async () => {
    for (let i = 0; i < 7; i++) {
      await store.createServiceWithReservation(
        request(`slice-${i}`, {
          pool: 'mig',
          tier: 'mig',
          placement: migPlacement,
          reservation: { gpuEquivalents: 1 / 7, monthlyCostMicros: 1 },
        }),
      );
    }
    await expect(
      store.createServiceWithReservation(
        request('slice-7', {
          pool: 'mig',
          tier: 'mig',
          placement: migPlacement,
          reservation: { gpuEquivalents: 1 / 7, monthlyCostMicros: 1 },
        }),
      ),
    ).rejects.toThrow(ConflictError);
    expect((await store.getQuota('ml'))!.reservedGpuEquivalents.mig).toBe(1);
  });

  it('is idempotent on the request key', async () => {
    const first = await store.createServiceWithReservation(
      request('a', { requestKey: 'k1' }),
    );
    const second = await store.createServiceWithReservation(
      request('a', { requestKey: 'k1' }),
    );

    expect(second.created).toBe(false);
    expect(second.service).toEqual(first.service);
    expect(second.reservation).toEqual(first.reservation);
    expect(await knex('services')).toHaveLength(1);
    expect(await ledger()).toHaveLength(1);
    await expect(
      store.createServiceWithReservation(
        request('a', {
          requestKey: 'k1',
          request: { ...request('a').request, replicas: 2 },
        }),
      ),
    ).rejects.toThrow(/already used by team 'ml' for a different request/);
  });

  it('answers concurrent calls with one request key with one service', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        store.createServiceWithReservation(request('a', { requestKey: 'k2' })),
      ),
    );
    expect(new Set(results.map(r => r.service.id)).size).toBe(1);
    expect(results.filter(r => r.created)).toHaveLength(1);
    expect(await ledger()).toHaveLength(1);
  });

  it('refuses a second live service of the same name in a namespace', async () => {
    await store.createServiceWithReservation(request('a'));
    await expect(
      store.createServiceWithReservation(request('a')),
    ).rejects.toThrow(/A service named 'a' already exists in namespace 'ml'/);
    expect(await ledger()).toHaveLength(1);
  });

  it.each([
    ['reject', 4, 0],
    // The other 46 wait for approval, up to the team's 20 (the default gpu.approvals.maxPendingPerTeam).
    ['require-approval', 4, 20],
  ] as const)(
    'never over-allocates nor over-queues: 50 parallel requests for 4 free GPUs, over quota = %s',
    async (whenOverQuota, held, pending) => {
      const results = await Promise.allSettled(
        Array.from({ length: 50 }, (_, i) =>
          store.createServiceWithReservation(
            request(`svc-${i}`, { policy: { whenOverQuota } }),
          ),
        ),
      );

      const statusOf = (r: (typeof results)[number]) =>
        r.status === 'fulfilled' ? r.value.service.status : 'refused';
      const counts = { approved: 0, 'pending-approval': 0, refused: 0 };
      for (const r of results) {
        counts[statusOf(r) as keyof typeof counts] += 1;
      }
      expect(counts).toEqual({
        approved: held,
        'pending-approval': pending,
        refused: 50 - held - pending,
      });
      const refused = results.filter(r => r.status === 'rejected');
      for (const r of refused) {
        expect((r as PromiseRejectedResult).reason).toBeInstanceOf(
          ConflictError,
        );
      }
      const rows = await ledger();
      expect(rows.filter(r => r.state === 'held')).toHaveLength(held);
      expect(rows.filter(r => r.state === 'pending')).toHaveLength(pending);
      const quota = (await store.getQuota('ml'))!;
      expect(quota.reservedGpuEquivalents).toEqual({ a100: 4 });
      expect(quota.reservedMonthlyCostMicros).toBe(4 * 500_000_000);
      expect(await knex('approvals').where({ state: 'pending' })).toHaveLength(
        pending,
      );
    },
  );

  it('records an over-quota request for approval when asked, and approval holds it', async () => {
    await store.createServiceWithReservation(
      request('base', {
        reservation: { gpuEquivalents: 3, monthlyCostMicros: 0 },
      }),
    );
    const result = await store.createServiceWithReservation(
      request('big', {
        reservation: { gpuEquivalents: 2, monthlyCostMicros: 0 },
        policy: {
          whenOverQuota: 'require-approval',
          approvalReasons: [
            { code: 'tier-not-allowed', message: 'dedicated needs approval' },
          ],
        },
      }),
    );
    expect(result.service.status).toBe('pending-approval');
    expect(result.reservation.state).toBe('pending');
    expect(result.approval!.reasons.map(r => r.code)).toEqual([
      'tier-not-allowed',
      'over-quota',
    ]);
    expect(await store.listApprovals({ state: 'pending' })).toEqual([
      result.approval,
    ]);

    await expect(
      store.decideApproval({
        id: result.approval!.id,
        decision: 'approve',
        actor: ADMIN,
      }),
    ).rejects.toThrow(/Approving would over-allocate/);

    const decided = await store.decideApproval({
      id: result.approval!.id,
      decision: 'approve',
      actor: ADMIN,
      comment: 'launch week',
      allowOverQuota: true,
    });
    expect(decided.approval).toMatchObject({
      state: 'approved',
      decidedBy: ADMIN,
      comment: 'launch week',
    });
    expect(decided.reservation.state).toBe('held');
    expect(decided.service.status).toBe('approved');
    expect((await store.getQuota('ml'))!.reservedGpuEquivalents.a100).toBe(5);
    await expect(
      store.decideApproval({
        id: result.approval!.id,
        decision: 'reject',
        actor: ADMIN,
      }),
    ).rejects.toThrow(/already approved/);
  });

  it('approves a policy-only request that still fits and rejects another', async () => {
    const policy = {
      whenOverQuota: 'reject' as const,
      approvalReasons: [{ code: 'big', message: 'dedicated above 1 GPU' }],
    };
    const a = await store.createServiceWithReservation(
      request('a', { policy }),
    );
    const b = await store.createServiceWithReservation(
      request('b', { policy }),
    );
    expect(a.reservation.state).toBe('pending');
    expect((await store.getQuota('ml'))!.reservedGpuEquivalents).toEqual({});

    const approved = await store.decideApproval({
      id: a.approval!.id,
      decision: 'approve',
      actor: ADMIN,
    });
    expect(approved.service.status).toBe('approved');
    const rejected = await store.decideApproval({
      id: b.approval!.id,
      decision: 'reject',
      actor: ADMIN,
      comment: 'use MIG',
    });
    expect(rejected.service).toMatchObject({
      status: 'rejected',
      statusReason: `Rejected by ${ADMIN}: use MIG`,
    });
    expect(rejected.reservation.state).toBe('released');
    expect((await store.getQuota('ml'))!.reservedGpuEquivalents).toEqual({
      a100: 1,
    });
    await expect(
      store.decideApproval({ id: 'nope', decision: 'approve', actor: ADMIN }),
    ).rejects.toThrow(NotFoundError);
  });

  it('releases a reservation once', async () => {
    const { service } = await store.createServiceWithReservation(request('a'));
    const [first, second] = await Promise.all([
      store.releaseReservation({ serviceId: service.id, actor: USER }),
      store.releaseReservation({ serviceId: service.id, actor: USER }),
    ]);
    const third = await store.releaseReservation({
      serviceId: service.id,
      actor: USER,
    });

    expect([first, second].filter(Boolean)).toHaveLength(1);
    expect((first ?? second)!.state).toBe('released');
    expect(third).toBeUndefined();
    const releases = await store.listAuditEvents({
      action: 'reservation.release',
    });
    expect(releases.items).toHaveLength(1);
    expect((await store.getQuota('ml'))!.reservedGpuEquivalents).toEqual({});
  });

  it('updates status with a guard and releases on teardown', async () => {
    const { service } = await store.createServiceWithReservation(request('a'));
    const applying = await store.updateServiceStatus({
      id: service.id,
      status: 'applying',
      reason: 'Applying',
      manifests: [
        { apiVersion: 'v1', kind: 'Service', metadata: { name: 'a' } },
      ],
      actor: USER,
    });
    expect(applying.manifests).toHaveLength(1);
    await expect(
      store.updateServiceStatus({
        id: service.id,
        status: 'deleting',
        reason: 'Deleting',
        expectedStatus: ['ready', 'failed'],
        actor: USER,
      }),
    ).rejects.toThrow(
      new ConflictError(
        "Service 'a' is applying; this change needs it to be ready or failed",
      ),
    );
    const failed = await store.updateServiceStatus({
      id: service.id,
      status: 'failed',
      reason: 'ApplyFailed',
      statusReason: 'Deployment a: 500 etcd timeout',
      releaseReservation: true,
      actor: USER,
    });
    expect(failed).toMatchObject({
      status: 'failed',
      statusReason: 'Deployment a: 500 etcd timeout',
      manifests: applying.manifests,
    });
    expect(await ledger()).toEqual([
      expect.objectContaining({ state: 'released' }),
    ]);
    await expect(
      store.updateServiceStatus({ id: 'x', status: 'ready', reason: 'Available', actor: USER }),
    ).rejects.toThrow(NotFoundError);
    expect(await store.getService('x')).toBeUndefined();
    expect(await store.getService(crypto.randomUUID())).toBeUndefined();
  });

  it('compares and sets on the status and version a change was computed from', async () => {
    const { service } = await store.createServiceWithReservation(request('a'));
    const starting = await store.updateServiceStatus({
      id: service.id,
      status: 'starting',
      reason: 'RolloutInProgress',
      statusReason: 'Applied',
      actor: USER,
    });
    expect(Date.parse(starting.updatedAt)).toBeGreaterThan(
      Date.parse(service.updatedAt),
    );

    // Two writers computed a change from the same version: the first wins, the second is refused.
    const ready = await store.updateServiceStatus({
      id: service.id,
      status: 'ready',
      reason: 'Available',
      expectedStatus: ['starting'],
      expectedUpdatedAt: starting.updatedAt,
      actor: 'system:refresh',
    });
    expect(ready.status).toBe('ready');
    await expect(
      store.updateServiceStatus({
        id: service.id,
        status: 'starting',
        reason: 'RolloutInProgress',
        statusReason: 'Availability lost',
        expectedStatus: ['starting', 'ready'],
        expectedUpdatedAt: starting.updatedAt,
        actor: 'system:refresh',
      }),
    ).rejects.toThrow(ConflictError);

    // Writes in the same millisecond still get distinct, increasing versions.
    const versions = [ready.updatedAt];
    for (let i = 0; i < 5; i++) {
      const before = await store.getService(service.id);
      const after = await store.updateServiceStatus({
        id: service.id,
        status: 'ready',
        reason: 'Available',
        statusReason: `write ${i}`,
        expectedUpdatedAt: before!.updatedAt,
        actor: USER,
      });
      versions.push(after.updatedAt);
    }
    expect(new Set(versions).size).toBe(versions.length);
    expect([...versions].sort()).toEqual(versions);

    // A deleted service is never brought back by a write computed before the delete; refused writes leave no event.
    const beforeDelete = await store.getService(service.id);
    await store.updateServiceStatus({
      id: service.id,
      status: 'deleted',
      reason: 'Deleted',
      releaseReservation: true,
      actor: USER,
    });
    await expect(
      store.updateServiceStatus({
        id: service.id,
        status: 'starting',
        reason: 'RolloutInProgress',
        expectedStatus: ['ready'],
        expectedUpdatedAt: beforeDelete!.updatedAt,
        actor: 'system:refresh',
      }),
    ).rejects.toThrow(ConflictError);
    expect((await store.getService(service.id))!.status).toBe('deleted');
    expect(
      (await store.listAuditEvents({ subjectId: service.id })).items.filter(
        e => e.action === 'service.status',
      ),
    ).toHaveLength(8);
  });

  it('refuses a change while an apply is in flight, and accepts it once the service is starting', async () => {
    const { service } = await store.createServiceWithReservation(request('a'));
    const change = {
      serviceId: service.id,
      change: {
        tier: 'dedicated' as const,
        pool: 'a100',
        request: { ...service.request, replicas: 2 },
        placement: service.placement,
      },
      reservation: { gpuEquivalents: 2, monthlyCostMicros: 1_000_000_000 },
      policy: { whenOverQuota: 'reject' as const },
      actor: USER,
    };
    await store.updateServiceStatus({
      id: service.id,
      status: 'applying',
      reason: 'Applying',
      actor: USER,
    });
    await expect(store.replaceReservation(change)).rejects.toThrow(
      "Service 'a' is applying; it can be changed when it is approved, starting, ready, failed",
    );
    await store.updateServiceStatus({
      id: service.id,
      status: 'starting',
      reason: 'RolloutInProgress',
      actor: USER,
    });
    expect((await store.replaceReservation(change)).outcome).toBe('replaced');
  });

  it('withdraws a pending approval when its service is torn down', async () => {
    const { service, approval } = await store.createServiceWithReservation(
      request('a', {
        policy: {
          whenOverQuota: 'reject',
          approvalReasons: [{ code: 'c', message: 'm' }],
        },
      }),
    );
    await store.updateServiceStatus({
      id: service.id,
      status: 'deleted',
      reason: 'Deleted',
      releaseReservation: true,
      actor: USER,
    });
    expect(await store.getApproval(approval!.id)).toMatchObject({
      state: 'rejected',
      comment: 'Withdrawn: the reservation was released',
    });
  });

  it('replaces a reservation atomically for a change', async () => {
    const { service, reservation } = await store.createServiceWithReservation(
      request('a', {
        reservation: { gpuEquivalents: 3, monthlyCostMicros: 3 },
      }),
    );
    const change = {
      tier: 'dedicated' as const,
      pool: 'a100',
      request: { ...service.request, replicas: 4 },
      placement: service.placement,
    };

    // 4 fits once the 3 held are given back.
    const replaced = await store.replaceReservation({
      serviceId: service.id,
      change,
      reservation: { gpuEquivalents: 4, monthlyCostMicros: 4 },
      policy: { whenOverQuota: 'reject' },
      actor: USER,
    });
    expect(replaced.outcome).toBe('replaced');
    expect(replaced.service.request.replicas).toBe(4);
    expect(
      (await store.listReservations(service.id)).map(r => [r.id, r.state]),
    ).toEqual(
      expect.arrayContaining([
        [reservation.id, 'released'],
        [replaced.reservation.id, 'held'],
      ]),
    );

    await expect(
      store.replaceReservation({
        serviceId: service.id,
        change: { ...change, request: { ...change.request, replicas: 5 } },
        reservation: { gpuEquivalents: 5, monthlyCostMicros: 5 },
        policy: { whenOverQuota: 'reject' },
        actor: USER,
      }),
    ).rejects.toThrow(ConflictError);
    expect((await store.getService(service.id))!.request.replicas).toBe(4);

    const waiting = await store.replaceReservation({
      serviceId: service.id,
      change: { ...change, request: { ...change.request, replicas: 5 } },
      reservation: { gpuEquivalents: 5, monthlyCostMicros: 5 },
      policy: { whenOverQuota: 'require-approval' },
      actor: USER,
    });
    expect(waiting.outcome).toBe('pending-approval');
    expect(waiting.service.request.replicas).toBe(4);
    expect((await store.getQuota('ml'))!.reservedGpuEquivalents.a100).toBe(4);

    const decided = await store.decideApproval({
      id: (waiting as { approval: { id: string } }).approval.id,
      decision: 'approve',
      actor: ADMIN,
      allowOverQuota: true,
    });
    expect(decided.service.request.replicas).toBe(5);
    expect((await store.getQuota('ml'))!.reservedGpuEquivalents.a100).toBe(5);
    expect(
      (await store.listReservations(service.id)).filter(
        r => r.state === 'held',
      ),
    ).toHaveLength(1);
  });

  it('audits every change with before and after, newest first, in pages', async () => {
    const { service } = await store.createServiceWithReservation(request('a'));
    await store.updateServiceStatus({
      id: service.id,
      status: 'ready',
      reason: 'Available',
      actor: USER,
    });
    await store.releaseReservation({ serviceId: service.id, actor: USER });

    const all = await store.listAuditEvents({ team: 'ml' });
    expect(all.items.map(e => e.action)).toEqual([
      'reservation.release',
      'service.status',
      'reservation.hold',
      'service.create',
      'quota.put',
    ]);
    const status = all.items[1];
    expect(status).toMatchObject({
      actor: USER,
      subjectType: 'service',
      subjectId: service.id,
      before: { status: 'approved' },
      after: { status: 'ready' },
    });
    expect(all.items[4]).toMatchObject({
      actor: ADMIN,
      before: undefined,
      after: { pools: { a100: 4, mig: 1 } },
    });

    const page1 = await store.listAuditEvents({ team: 'ml', limit: 2 });
    const page2 = await store.listAuditEvents({
      team: 'ml',
      limit: 2,
      cursor: page1.nextCursor,
    });
    const page3 = await store.listAuditEvents({
      team: 'ml',
      limit: 2,
      cursor: page2.nextCursor,
    });
    expect([...page1.items, ...page2.items, ...page3.items]).toEqual(all.items);
    expect(page3.nextCursor).toBeUndefined();

    expect(
      (
        await store.listAuditEvents({
          subjectType: 'service',
          subjectId: service.id,
        })
      ).items,
    ).toHaveLength(2);
    expect(
      (await store.listAuditEvents({ since: '2999-01-01T00:00:00Z' })).items,
    ).toEqual([]);
    expect(
      (await store.listAuditEvents({ until: '2999-01-01T00:00:00Z' })).items,
    ).toHaveLength(5);
    await expect(store.listAuditEvents({ limit: 0 })).rejects.toThrow(
      InputError,
    );
    await expect(store.listAuditEvents({ since: 'yesterday' })).rejects.toThrow(
      InputError,
    );
  });

  it('replaces quota with an audit trail and lists quotas and services', async () => {
    const before = (await store.getQuota('ml'))!;
    const after = await store.putQuota({
      team: 'ml',
      quota: { pools: { h100: 2.5 }, monthlyBudgetMicros: 1 },
      actor: ADMIN,
    });
    expect(after).toMatchObject({
      team: 'ml',
      pools: { h100: 2.5 },
      monthlyBudgetMicros: 1,
      updatedBy: ADMIN,
    });
    const [event] = (
      await store.listAuditEvents({ action: 'quota.put', limit: 1 })
    ).items;
    expect(event.before).toEqual(before);
    expect(event.after).toEqual(after);
    await store.putQuota({
      team: 'vision',
      quota: { pools: {}, monthlyBudgetMicros: 0 },
      actor: ADMIN,
    });
    expect((await store.listQuotas()).map(q => q.team)).toEqual([
      'ml',
      'vision',
    ]);
    await expect(
      store.putQuota({
        team: 'ml',
        quota: { pools: { a100: -1 }, monthlyBudgetMicros: 0 },
        actor: ADMIN,
      }),
    ).rejects.toThrow(InputError);

    await store.putQuota({
      team: 'vision',
      quota: { pools: { a100: 1 }, monthlyBudgetMicros: 600_000_000 },
      actor: ADMIN,
    });
    const v = await store.createServiceWithReservation(
      request('v', {
        team: 'vision',
        namespace: 'vision',
        reservation: { gpuEquivalents: 1, monthlyCostMicros: 500_000_000 },
      }),
    );
    expect(
      (await store.listServices({ team: 'vision' })).map(s => s.id),
    ).toEqual([v.service.id]);
    expect(await store.listServices({ status: ['ready', 'failed'] })).toEqual(
      [],
    );
    expect(await store.listServices({ status: 'approved' })).toHaveLength(1);
  });
});
