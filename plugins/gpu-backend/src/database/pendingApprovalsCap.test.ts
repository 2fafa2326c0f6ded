import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { ConflictError } from '@backstage/errors';
import { storePlatform } from './__testUtils__/storePlatform';
import { DatabaseGpuStore } from './DatabaseGpuStore';
import { CreateServiceInput } from './types';

jest.setTimeout(60_000);

const databases = TestDatabases.create({ ids: ['POSTGRES_15', 'SQLITE_3'] });

const BOB = 'user:default/bob';
const ADMIN = 'user:default/platform-admin';

/** A one-GPU dev service of search on h100, where search has no quota: it always waits for approval. */
function overQuota(name: string): CreateServiceInput {
  return {
    name,
    team: 'search',
    namespace: 'search',
    environment: 'dev',
    tier: 'dedicated',
    pool: 'h100',
    request: {
      name,
      team: 'search',
      model: 'llama-3.1-8b',
      runtime: 'vllm',
      maxModelLen: 8192,
      concurrency: 8,
      replicas: 1,
      environment: 'dev',
    },
    placement: { tier: 'dedicated', pool: 'h100', gpusPerReplica: 1 },
    mode: 'dry-run',
    reservation: { gpuEquivalents: 1, monthlyCostMicros: 1_000_000 },
    policy: { whenOverQuota: 'require-approval' },
    actor: BOB,
  };
}

describe.each(databases.eachSupportedId())(
  'the approval queue is bounded per team on %p',
  id => {
    it('refuses one request more than gpu.approvals.maxPendingPerTeam, and takes it again once one is decided', async () => {
      const knex = await databases.init(id);
      const store = await DatabaseGpuStore.create({
        database: mockServices.database({ knex }),
        platform: storePlatform,
        maxPendingApprovalsPerTeam: 3,
      });
      await store.putQuota({
        team: 'search',
        quota: { pools: { h100: 0 }, monthlyBudgetMicros: 10 ** 12 },
        actor: ADMIN,
      });
      const approvals = [];
      for (const name of ['a', 'b', 'c']) {
        const created = await store.createServiceWithReservation(
          overQuota(name),
        );
        expect(created.service.status).toBe('pending-approval');
        approvals.push(created.approval!);
      }
      const refused = store.createServiceWithReservation(overQuota('d'));
      await expect(refused).rejects.toThrow(ConflictError);
      await expect(refused).rejects.toThrow(
        'Team search already has 3 requests waiting for approval',
      );
      expect(await store.listServices({ team: 'search' })).toHaveLength(3);

      await store.decideApproval({
        id: approvals[0].id,
        decision: 'reject',
        actor: ADMIN,
      });
      const accepted = await store.createServiceWithReservation(overQuota('d'));
      expect(accepted.service.status).toBe('pending-approval');
    });
  },
);
